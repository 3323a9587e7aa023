import type { Response } from 'express';
import { ControlError } from '../errors.js';
import type { Simulator } from '../simulator.js';
import { Type } from '../typebox.js';
import { Challenge, Clock, id, json, jsonBody, type ControlRoute } from './control-schemas.js';
import { challengeView, clockView } from './control.js';

/** The control API's routes for the world: challenges as the user answers them, and the clock. Rows of its table. */

const answerClock = (sim: Simulator, res: Response) => void res.json(clockView(sim));

export const WORLD_ROUTES: readonly ControlRoute[] = [
  {
    method: 'GET',
    path: '/__sim/challenges',
    operationId: 'listChallenges',
    summary: 'The challenges, newest first',
    answers: { 200: json(Type.Array(Challenge), 'the challenges') },
    handler: (sim) => (_req, res) => void res.json(sim.challenges().map(challengeView)),
  },
  {
    method: 'POST',
    path: '/__sim/challenges/:id/approve',
    operationId: 'approveChallenge',
    summary: 'The user approves a waiting challenge',
    body: 'json',
    parameters: [id],
    requestBody: jsonBody(
      {
        type: 'object',
        properties: { authCode: { type: 'string', minLength: 1, maxLength: 64 } },
        additionalProperties: false,
      },
      false,
    ),
    answers: { 200: json(Challenge, 'approved') },
    errors: [400, 404, 409],
    handler: (sim) => (req, res) => {
      const authCode = (req.body as { authCode?: unknown } | undefined)?.authCode;
      res.json(challengeView(sim.approve(String(req.params.id), authCode as string | undefined)));
    },
  },
  {
    method: 'POST',
    path: '/__sim/challenges/:id/deny',
    operationId: 'denyChallenge',
    summary: 'The user denies a waiting challenge',
    parameters: [id],
    answers: { 200: json(Challenge, 'denied') },
    errors: [404, 409],
    handler: (sim) => (req, res) => void res.json(challengeView(sim.deny(String(req.params.id)))),
  },
  {
    method: 'POST',
    path: '/__sim/challenges/:id/expire',
    operationId: 'expireChallenge',
    summary: 'A waiting challenge expires now',
    parameters: [id],
    answers: { 200: json(Challenge, 'expired') },
    errors: [404, 409],
    handler: (sim) => (req, res) => void res.json(challengeView(sim.expire(String(req.params.id)))),
  },
  {
    method: 'GET',
    path: '/__sim/clock',
    operationId: 'getClock',
    summary: "The simulator's clock",
    answers: { 200: json(Clock, 'the clock') },
    handler: (sim) => (_req, res) => answerClock(sim, res),
  },
  {
    method: 'POST',
    path: '/__sim/clock/freeze',
    operationId: 'freezeClock',
    summary: 'Stop the clock, at an instant or where it stands',
    body: 'json',
    requestBody: jsonBody(
      {
        type: 'object',
        properties: { at: { type: ['string', 'number'], description: 'ISO 8601 or epoch ms, 1970 to 9999' } },
      },
      false,
    ),
    answers: { 200: json(Clock, 'the clock') },
    errors: [400],
    handler: (sim) => (req, res) => {
      sim.freeze((req.body as { at?: number | string } | undefined)?.at);
      answerClock(sim, res);
    },
  },
  {
    method: 'POST',
    path: '/__sim/clock/unfreeze',
    operationId: 'unfreezeClock',
    summary: 'Let the clock run again',
    answers: { 200: json(Clock, 'the clock') },
    handler: (sim) => (_req, res) => {
      sim.unfreeze();
      answerClock(sim, res);
    },
  },
  {
    method: 'POST',
    path: '/__sim/clock/advance',
    operationId: 'advanceClock',
    summary: 'Move the clock',
    body: 'json',
    requestBody: jsonBody({
      type: 'object',
      properties: { by: { type: ['string', 'number'], description: 'ms, or 90s, 10m, -1h; at most 50 years' } },
      required: ['by'],
    }),
    answers: { 200: json(Clock, 'the clock') },
    errors: [400],
    handler: (sim) => (req, res) => {
      const by = (req.body as { by?: number | string } | undefined)?.by;
      if (by === undefined) throw new ControlError(400, 'send { "by": "5m" } (a duration, or milliseconds)');
      sim.advance(by);
      answerClock(sim, res);
    },
  },
];
