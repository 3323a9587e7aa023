/**
 * The event stream's `scenario` events: every scenario made active, by the control API or an in-process call, reaches
 * an open dashboard with its name, description, API users and the accounts it lists by name, secrets hidden, once per
 * load. A binding (one API user's own scenario) makes no scenario active and sends none.
 */
import { describe, expect, it } from 'vitest';
import { followEvents, simulator } from '../helpers.js';

interface ScenarioEvent {
  name: string;
  description?: string;
  apiUsers: string[];
  accounts: string[];
}

const scenarioEvents = (base: string) => followEvents<ScenarioEvent>(base, 'scenario');

const SECRET = 'scenario-events-secret';

describe('the scenario on the event stream', async () => {
  const sim = await simulator({ secret: SECRET });
  const post = (path: string, body: object) =>
    fetch(`${sim.url}/__sim/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.status);

  it('a load by the control API is an event with the scenario as the dashboard shows it', async () => {
    const stream = scenarioEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      expect(
        await post('scenario', {
          scenario: {
            name: 'two-users',
            description: 'Two API users and a locked account',
            apiUsers: [
              { id: '111111111', secret: 'first-user-secret' },
              { id: '222222222', secret: 'second-user-secret' },
            ],
            accounts: { 'locked@example.com': 'locked', '*@blocked.example': 'blocked' },
          },
        }),
      ).toBe(200);
      await expect.poll(() => stream.events.length).toBe(1);
      expect(stream.events[0]).toEqual({
        name: 'two-users',
        description: 'Two API users and a locked account',
        // The simulator's own API user (its secret was given) stays known beside the scenario's.
        apiUsers: [sim.apiUser.id, '111111111', '222222222'],
        // A glob names no one account: only accounts listed by name are suggested.
        accounts: ['locked@example.com'],
        // No one scripted; the magic addresses answer (the default).
        people: [],
        magicAddresses: true,
      });
    } finally {
      stream.stop();
      sim.loadScenario('default');
    }
  });

  it('an in-process load is an event too, once per load; a binding is not (it changes no active scenario)', async () => {
    const stream = scenarioEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      sim.loadScenario('locked-account');
      sim.bindScenario(sim.apiUser.id, 'clock-ahead');
      sim.loadScenario('default');
      await expect.poll(() => stream.events.length).toBe(2);
      // Nothing more arrives: the binding sent nothing, and no load was sent twice.
      await new Promise((r) => setTimeout(r, 200));
      expect(stream.events.map((e) => e.name)).toEqual(['locked-account', 'default']);
      expect(stream.events[1].apiUsers).toEqual([sim.apiUser.id]);
    } finally {
      stream.stop();
      sim.unbindScenario(sim.apiUser.id);
    }
  });

  it('hides every secret the simulator holds, in the name and the description alike', async () => {
    const stream = scenarioEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      sim.loadScenario({
        name: `named-${SECRET}`,
        description: `mentions first-user-secret and ${SECRET}`,
        apiUsers: [{ id: '111111111', secret: 'first-user-secret' }],
      });
      await expect.poll(() => stream.events.length).toBe(1);
      expect(stream.text()).not.toContain(SECRET);
      expect(stream.text()).not.toContain('first-user-secret');
      expect(stream.events[0]).toMatchObject({
        name: 'named-[secret]',
        description: 'mentions [secret] and [secret]',
      });
    } finally {
      stream.stop();
      sim.loadScenario('default');
    }
  });

  it('stops watching with the last stream: a load after every stream closed reaches the next stream only', async () => {
    const first = scenarioEvents(sim.url);
    await expect.poll(first.opened).toBe(true);
    first.stop();
    await new Promise((r) => setTimeout(r, 100));
    sim.loadScenario('locked-account');
    const next = scenarioEvents(sim.url);
    try {
      await expect.poll(next.opened).toBe(true);
      sim.loadScenario('default');
      await expect.poll(() => next.events.length).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(next.events.map((e) => e.name)).toEqual(['default']);
      expect(first.events).toEqual([]);
    } finally {
      next.stop();
    }
  });
});
