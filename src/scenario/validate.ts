import type { TSchema } from '@sinclair/typebox';
import { Errors, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { closest } from '../output/closest.js';
import type { ScenarioIssue } from '../contract/errors.js';
import { ScenarioSchema } from './schema.js';

/** At most this many problems of a scenario are reported at once. */
export const MAX_ISSUES = 20;

/** A problem of shape, with what mending it needs (mend.ts), and the schema at its place. */
export interface ShapeProblem extends ScenarioIssue {
  kind: 'unknown-key' | 'missing' | 'value';
  /** For an unknown key: the known key nearest to it, when one is near. */
  near?: string;
  schema: TSchema;
}

type Bound = 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'maxItems';
type Schema = TSchema & Partial<Record<Bound, number>> & { errorMessage?: string; anyOf?: { const?: unknown }[] };

const T = ValueErrorType;
const MESSAGES: Partial<Record<ValueErrorType, (s: Schema) => string | undefined>> = {
  [T.ObjectRequiredProperty]: () => 'is required',
  [T.String]: () => 'must be a string',
  [T.StringMinLength]: (s) => (s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`),
  [T.StringMaxLength]: (s) => `must be at most ${s.maxLength} characters`,
  [T.StringPattern]: (s) => s.errorMessage,
  [T.Number]: () => 'must be a number',
  [T.Integer]: () => 'must be a whole number',
  [T.IntegerMinimum]: (s) => `must be at least ${s.minimum}`,
  [T.NumberMinimum]: (s) => `must be at least ${s.minimum}`,
  [T.IntegerMaximum]: (s) => `must be at most ${s.maximum}`,
  [T.NumberMaximum]: (s) => `must be at most ${s.maximum}`,
  [T.ArrayMaxItems]: (s) => `must have at most ${s.maxItems} items`,
  [T.Boolean]: () => 'must be true or false',
  [T.Array]: () => 'must be a list',
  [T.Object]: () => 'must be a mapping (key: value)',
};

/** Checks a value against the scenario schema: types, allowed values, required and unknown keys. */
export const checkShape = (value: unknown): ShapeProblem[] => problems(ScenarioSchema, value);

/** A checker for any schema: the problems of a value, each with its key path and a plain message. */
export function shapeChecker(schema: TSchema): (value: unknown) => ScenarioIssue[] {
  return (value) => problems(schema, value).map(({ path, message }) => ({ path, message }));
}

function problems(schema: TSchema, value: unknown): ShapeProblem[] {
  const issues: ShapeProblem[] = [];
  for (const e of Errors(schema, value)) {
    const p = problem(e);
    // One problem per key, and none under a key already reported (a bad union reports each branch).
    if (issues.some((i) => isPrefix(i.path, p.path))) continue;
    if (issues.push(p) >= MAX_ISSUES) break;
  }
  return issues;
}

function problem(e: ValueError): ShapeProblem {
  const path = e.path === '' ? [] : e.path.slice(1).split('/').map(unescapePointer);
  const s = e.schema as Schema;
  if (e.type === T.ObjectAdditionalProperties) {
    const known = Object.keys((s.properties ?? {}) as object);
    const near = closest(String(path[path.length - 1]), known);
    const hint = near ? ` (did you mean "${near}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : '';
    return { path, message: `unknown key${hint}`, kind: 'unknown-key', near, schema: e.schema };
  }
  let message = MESSAGES[e.type]?.(s) ?? e.message;
  if (e.type === T.Union) {
    // One of a list of words: the nearest to a misspelled one.
    const words = (s.anyOf ?? []).map((a) => a.const).filter((c): c is string => typeof c === 'string');
    const near = typeof e.value === 'string' ? closest(e.value, words) : undefined;
    message = `${s.errorMessage ?? 'has the wrong type'}${near ? ` (did you mean "${near}"?)` : ''}`;
  }
  return { path, message, kind: e.type === T.ObjectRequiredProperty ? 'missing' : 'value', schema: e.schema };
}

export function isPrefix(prefix: (string | number)[], path: (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, k) => String(seg) === String(path[k]));
}

function unescapePointer(segment: string): string | number {
  const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(key) ? Number(key) : key;
}
