import { describe, expect, it } from 'vitest';
import { MadeChallenges } from '../src/doctor/made-challenges.js';

// The client doctor's memory of the challenges it watches for `challenge-abandoned` (the findings' tests drive it
// through the HTTP server; here its ring at the edges: the bound, an id made again, clear).
describe('the challenges made for watched API users', () => {
  const list = (m: MadeChallenges) => [...m].map((c) => `${c.id}:${c.apiUser}:${c.seq}:${c.followed ? 'f' : '-'}`);

  it('keeps the newest max, oldest first; a challenge is followed only by the API user it was made for', () => {
    const m = new MadeChallenges(3);
    m.made('a', '111111111', 1);
    m.made('b', '222222222', 2);
    m.follow('a', '222222222');
    m.follow('b', '222222222');
    m.follow('nope', '222222222');
    expect(list(m)).toEqual(['a:111111111:1:-', 'b:222222222:2:f']);
    m.made('c', '111111111', 3);
    m.made('d', '111111111', 4);
    expect(list(m)).toEqual(['b:222222222:2:f', 'c:111111111:3:-', 'd:111111111:4:-']);
    expect(m.size).toBe(3);
    // Forgotten: following it changes nothing, and its slot's flag is not carried to the challenge that took it.
    m.follow('a', '111111111');
    m.made('e', '111111111', 5);
    expect(list(m)).toEqual(['c:111111111:3:-', 'd:111111111:4:-', 'e:111111111:5:-']);
  });

  it('an id made again lives in its new slot only, and is forgotten once', () => {
    const m = new MadeChallenges(3);
    m.made('a', '111111111', 1);
    m.follow('a', '111111111');
    m.made('b', '111111111', 2);
    m.made('a', '111111111', 3);
    expect(list(m)).toEqual(['b:111111111:2:-', 'a:111111111:3:-']);
    expect(m.size).toBe(2);
    m.made('c', '111111111', 4);
    m.made('d', '111111111', 5);
    expect(list(m)).toEqual(['a:111111111:3:-', 'c:111111111:4:-', 'd:111111111:5:-']);
    m.follow('a', '111111111');
    expect(list(m)[0]).toBe('a:111111111:3:f');
  });

  it('clear forgets everything; a ring of one keeps the last', () => {
    const m = new MadeChallenges(2);
    m.made('a', '111111111', 1);
    m.made('b', '111111111', 2);
    m.clear();
    expect([m.size, list(m)]).toEqual([0, []]);
    m.made('c', '111111111', 3);
    expect(list(m)).toEqual(['c:111111111:3:-']);
    const one = new MadeChallenges(1);
    one.made('x', '111111111', 1);
    one.made('y', '111111111', 2);
    expect(list(one)).toEqual(['y:111111111:2:-']);
  });
});
