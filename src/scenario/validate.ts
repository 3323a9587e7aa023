import type { TSchema } from '@sinclair/typebox';
import { Errors, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Check } from '@sinclair/typebox/value';
import { closest } from '../closest.js';
import type { ScenarioIssue } from '../errors.js';
import { ScenarioSchema } from './schema.js';

/**
 * Checking a value against a TypeBox schema, with a plain message per key (the scenario schema, the run options).
 */

// TypeBox is bundled into dist (tsup.config.ts): one file instead of some 250 modules to resolve at start-up. Values
// are checked by interpreting the schema, not by a compiled checker: a scenario or the options are checked once each,
// and compiling the checkers cost more (some 10 ms at start-up) than all the checks of a test run.

/** At most this many problems of a scenario are reported at once. */
export const MAX_ISSUES = 20;

/**
 * A problem of shape, with what mending it needs (mend.ts): an unknown key and the known key it most likely means, a
 * required key that is missing, or a value the schema refuses; and the schema at its place.
 */
export interface ShapeProblem extends ScenarioIssue {
  kind: 'unknown-key' | 'missing' | 'value';
  /** For an unknown key: the known key nearest to it, when one is near. */
  near?: string;
  schema: TSchema;
}

/** Checks a value against the scenario schema: types, allowed values, required and unknown keys. */
export function checkShape(value: unknown): ShapeProblem[] {
  return problems(ScenarioSchema, value);
}

/** A checker for any schema: the problems of a value, each with its key path and a plain message. */
export function shapeChecker(schema: TSchema): (value: unknown) => ScenarioIssue[] {
  return (value) => problems(schema, value).map(({ path, message }) => ({ path, message }));
}

function problems(schema: TSchema, value: unknown): ShapeProblem[] {
  if (Check(schema, value)) return [];
  const issues: ShapeProblem[] = [];
  const seen = new Set<string>();
  for (const e of Errors(schema, value)) {
    const path = splitPointer(e.path);
    const key = path.join('\u0000');
    // One problem per key, and none under a key already reported (a bad union reports each branch).
    if ([...seen].some((s) => key === s || key.startsWith(`${s}\u0000`))) continue;
    seen.add(key);
    issues.push(problem(e, path));
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues;
}

function problem(e: ValueError, path: (string | number)[]): ShapeProblem {
  const message = describe(e, path);
  if (e.type === ValueErrorType.ObjectRequiredProperty) return { path, message, kind: 'missing', schema: e.schema };
  if (e.type !== ValueErrorType.ObjectAdditionalProperties) return { path, message, kind: 'value', schema: e.schema };
  return { path, message, kind: 'unknown-key', near: nearestKey(e, path), schema: e.schema };
}

function nearestKey(e: ValueError, path: (string | number)[]): string | undefined {
  return closest(
    String(path[path.length - 1]),
    Object.keys((e.schema as { properties?: Record<string, unknown> }).properties ?? {}),
  );
}

function splitPointer(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

// ValueErrorType numbers are stable within TypeBox 0.34; matched by name through the enum.
function describe(e: ValueError, path: (string | number)[]): string {
  const T = ValueErrorType;
  const schema = e.schema as TSchema & {
    errorMessage?: string;
    minLength?: number;
    maxLength?: number;
    minimum?: number;
    maximum?: number;
    maxItems?: number;
  };
  switch (e.type) {
    case T.ObjectAdditionalProperties: {
      const known = Object.keys((e.schema as { properties?: Record<string, unknown> }).properties ?? {});
      const near = nearestKey(e, path);
      return `unknown key${near ? ` (did you mean "${near}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : ''}`;
    }
    case T.ObjectRequiredProperty:
      return 'is required';
    case T.Union: {
      // One of a list of words: the nearest to a misspelled one.
      const words = ((schema as { anyOf?: { const?: unknown }[] }).anyOf ?? [])
        .map((a) => a.const)
        .filter((c): c is string => typeof c === 'string');
      const near = typeof e.value === 'string' ? closest(e.value, words) : undefined;
      return `${schema.errorMessage ?? 'has the wrong type'}${near ? ` (did you mean "${near}"?)` : ''}`;
    }
    case T.String:
      return 'must be a string';
    case T.StringMinLength:
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`;
    case T.StringMaxLength:
      return `must be at most ${schema.maxLength} characters`;
    case T.Number:
      return 'must be a number';
    case T.Integer:
      return 'must be a whole number';
    case T.IntegerMinimum:
    case T.NumberMinimum:
      return `must be at least ${schema.minimum}`;
    case T.IntegerMaximum:
    case T.NumberMaximum:
      return `must be at most ${schema.maximum}`;
    case T.ArrayMaxItems:
      return `must have at most ${schema.maxItems} items`;
    case T.StringPattern:
      return schema.errorMessage ?? e.message;
    case T.Boolean:
      return 'must be true or false';
    case T.Array:
      return 'must be a list';
    case T.Object:
      return 'must be a mapping (key: value)';
    default:
      return e.message;
  }
}
