// Every error mfa-sim throws, with a stable `code`. Each carries a `Symbol.for` brand, the same in every copy of the
// package (Jest registries, two versions, ESM and CJS builds), which `isMfaSimError` and `instanceof` read.

/** The stable codes of mfa-sim's errors, one per kind. */
export type MfaSimErrorCode =
  'MFA_SIM_SCENARIO' | 'MFA_SIM_OPTIONS' | 'MFA_SIM_CONTROL' | 'MFA_SIM_FLAG' | 'MFA_SIM_CLIENT' | 'MFA_SIM_INTERNAL';

const BRAND = Symbol.for('mfa-sim.error.code');

/** The base of every error mfa-sim throws; `code` says which kind it is. */
export abstract class MfaSimError extends Error {
  /** The kind's code; the base class has none and stands for every kind. */
  static readonly code: MfaSimErrorCode | undefined = undefined;
  /** Which kind of error this is: stable from release to release. */
  abstract readonly code: MfaSimErrorCode;

  get [BRAND](): MfaSimErrorCode {
    return this.code;
  }

  /** `e instanceof ScenarioError` holds for a scenario error thrown by any copy of mfa-sim, not only this one. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isMfaSimError(value, this.code);
  }
}

/** One problem found in a scenario or in options: where (a key path, and a line when it came from a file) and what. */
export interface ScenarioIssue {
  path: (string | number)[];
  message: string;
  line?: number;
}

/** A key path as a reader writes it: `rules[0].when.svcUser`, `accounts["*@example.com"]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** One line per problem: `scenarios/x.yaml:12: rules[0].tims: unknown key (did you mean "times"?)`. */
function issueLines(source: string, issues: readonly ScenarioIssue[]): string {
  return issues
    .map((i) => `${source}${i.line ? `:${i.line}` : ''}: ${i.path.length ? `${formatPath(i.path)}: ` : ''}${i.message}`)
    .join('\n');
}

/** `MFA_SIM_SCENARIO`: a scenario that cannot be used. */
export class ScenarioError extends MfaSimError {
  static override readonly code = 'MFA_SIM_SCENARIO';
  readonly code = ScenarioError.code;
  override readonly name = 'ScenarioError';

  constructor(
    /** The file, scenario name or body the scenario came from. */
    readonly source: string,
    readonly issues: ScenarioIssue[],
  ) {
    super(issueLines(source, issues));
  }
}

/** `MFA_SIM_OPTIONS`: options given in process that cannot be used. */
export class OptionsError extends MfaSimError {
  static override readonly code = 'MFA_SIM_OPTIONS';
  readonly code = OptionsError.code;
  override readonly name = 'OptionsError';

  constructor(readonly issues: ScenarioIssue[]) {
    super(issueLines('options', issues));
  }
}

/** `MFA_SIM_CONTROL`: a control operation that cannot be done, in process or through the control API. */
export class ControlError extends MfaSimError {
  static override readonly code = 'MFA_SIM_CONTROL';
  readonly code = ControlError.code;
  override readonly name = 'ControlError';

  constructor(
    /** 400 a bad value, 404 nothing of that name, 409 the state does not allow it. */
    readonly status: number,
    message: string,
    /** A scenario the control API refused: each problem (in process, a ScenarioError carries them). */
    readonly issues: ScenarioIssue[] = [],
  ) {
    super(message);
  }
}

/** `MFA_SIM_FLAG`: a command-line flag, or its environment variable, that cannot be used; the message names it. */
export class FlagError extends MfaSimError {
  static override readonly code = 'MFA_SIM_FLAG';
  readonly code = FlagError.code;
  override readonly name = 'FlagError';
}

/** `MFA_SIM_CLIENT`: an answer `mfa-sim/client` cannot read as an envelope. */
export class ClientError extends MfaSimError {
  static override readonly code = 'MFA_SIM_CLIENT';
  readonly code = ClientError.code;
  override readonly name = 'ClientError';

  constructor(
    message: string,
    readonly httpStatus: number,
    readonly body: string,
  ) {
    super(message);
  }
}

/** `MFA_SIM_INTERNAL`: a bug in mfa-sim, or a broken installation of it; the message says what was found wrong. */
export class InternalError extends MfaSimError {
  static override readonly code = 'MFA_SIM_INTERNAL';
  readonly code = InternalError.code;
  override readonly name = 'InternalError';
}

/** The class of each code, for `isMfaSimError`'s narrowing. */
type AnyMfaSimError = ScenarioError | OptionsError | ControlError | FlagError | ClientError | InternalError;
type ErrorOfCode = { [E in AnyMfaSimError as E['code']]: E };

/** Whether a value is an error thrown by any copy of mfa-sim, of the kind `code` names when given. */
export function isMfaSimError<C extends MfaSimErrorCode = MfaSimErrorCode>(
  value: unknown,
  code?: C,
): value is ErrorOfCode[C] {
  if (typeof value !== 'object' || value === null) return false;
  const brand = (value as { [BRAND]?: unknown })[BRAND];
  return typeof brand === 'string' && brand.startsWith('MFA_SIM_') && (code === undefined || brand === code);
}
