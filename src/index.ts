/**
 * mfa-sim: a faithful simulator of the multi-factor challenge and time service.
 *
 * - `startSimulator(options)`: a simulator listening on HTTP, for tests and scripts; resolves to a `RunningSimulator`.
 * - `createApp(options)`: the simulator as a Node request listener (for supertest, or to mount in your own server).
 * - `signedHeaders`, `sign`, `stringToSign`: the signing the simulator verifies, for clients under test.
 * - `isMfaSimError(e, code?)`: whether an error is mfa-sim's, of which kind (`ScenarioError`, `OptionsError`,
 *   `ControlError`...), whichever copy of the package threw it.
 *
 * @packageDocumentation
 * @module mfa-sim
 */
export { startSimulator, type RunningSimulator } from './http/server.js';
export { createApp, type SimulatorApp } from './http/app.js';
export { Simulator } from './simulator/simulator.js';
export type { SimulatorOptions } from './simulator/options.js';
export { DEFAULT_BODY_LIMIT, type StartOptions } from './simulator/options.js';
export { DEFAULT_API_USER } from './world/world.js';
export { SCENARIO_HEADER } from './scenario/registry.js';
export {
  ControlError,
  InternalError,
  isMfaSimError,
  MfaSimError,
  OptionsError,
  ScenarioError,
  type MfaSimErrorCode,
  type ScenarioIssue,
} from './contract/errors.js';
export {
  sign,
  signedHeaders,
  stringToSign,
  authorizationValue,
  headerNames,
  DEFAULT_TOKEN,
  type SignOptions,
} from './auth/signature.js';
export { CODES, codeInfo, SERVICE_CODES, OPERATIONS, type CodeInfo, type Operation } from './contract/codes.js';
export { loadScenarioFile, loadScenarioText } from './scenario/load.js';
export { ScenarioSchema, type ScenarioInput, type ApiUserInput, type RuleInput } from './scenario/schema.js';
export { shippedScenarioNames } from './scenario/catalog.js';
export type { JournalEntry } from './run/answered.js';
export type { ObserverFailure } from './run/failures.js';
export type { Verdict } from './run/report.js';
export type { Finding, HintSeen, Scope, Severity } from './run/finding-types.js';
export type { CoverageReport } from './run/coverage.js';
export type { Challenge } from './world/challenges.js';
export type { Actor, ChallengeState, Step } from './world/steps.js';
