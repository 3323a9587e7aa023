/**
 * mfa-sim: a faithful simulator of the multi-factor challenge and time service.
 *
 * - `startSimulator(options)`: a simulator listening on HTTP, for tests and scripts; resolves to a `RunningSimulator`.
 * - `createApp(options)`: the simulator as a Node request listener (for supertest, or to mount in your own server).
 * - `signedHeaders`, `sign`, `stringToSign`: the signing the simulator verifies, for clients under test.
 * - `ScenarioError`, `ControlError`: every error the in-process API throws.
 *
 * @packageDocumentation
 * @module mfa-sim
 */
export { startSimulator, type RunningSimulator, type StartOptions } from './http/server.js';
export { createApp, type SimulatorApp } from './http/app.js';
export { Simulator, type SimulatorOptions } from './simulator.js';
export { DEFAULT_BODY_LIMIT } from './run-options.js';
export { DEFAULT_API_USER } from './world/world.js';
export { SCENARIO_HEADER } from './scenario/registry.js';
export { ControlError } from './errors.js';
export { sign, signedHeaders, stringToSign, authorizationValue, headerNames, DEFAULT_TOKEN, type SignOptions } from './auth/signature.js';
export { CODES, codeInfo, SERVICE_CODES, OPERATIONS, type CodeInfo, type Operation } from './codes.js';
export { loadScenarioFile, loadScenarioText } from './scenario/load.js';
export { ScenarioError, type ScenarioIssue } from './scenario/errors.js';
export { ScenarioSchema, type ScenarioInput, type ApiUserInput, type RuleInput } from './scenario/schema.js';
export { shippedScenarioNames } from './scenario/catalog.js';
export type { JournalEntry } from './observers/answered.js';
export type { Challenge } from './world/challenges.js';
export type { Actor, ChallengeState, Step } from './world/steps.js';
