import type { TObject, TSchema } from '@sinclair/typebox';
import type { ScenarioIssue } from '../errors.js';
import type { ScenarioInput } from './schema.js';
import { checkShape, isPrefix, type ShapeProblem } from './validate.js';

/**
 * A scenario whose shape is wrong, mended far enough for the checks of meaning (compile.ts) to read the rest of it, so
 * that every problem is reported in one pass: an unknown key near a known one is read as that key (its value is then
 * checked as that key's), and any other value the schema refuses is set aside (a placeholder of the right shape stands
 * in for it). A problem of meaning is reported only when the rule, API user, account or setting it belongs to was read
 * whole: a set-aside value could have caused it.
 */

type Path = (string | number)[];
type Container = Record<string | number, unknown>;

/**
 * Rounds of mending: a value read as another key may show problems of its own, mended in the next round; the schema
 * nests a few levels deep (apiUsers[].ipRules.block[]), so this many rounds mend any scenario. A bound all the same.
 */
const ROUNDS = 6;
/**
 * The containers mending may change lie at most this deep (apiUsers[0].ipRules.block holds the deepest value): copied,
 * so that the caller's value is never changed. A bound, not a full copy, as an in-process value may hold a cycle.
 */
const COPIED_LEVELS = 5;

export interface Mended {
  /** Every problem of shape, at the key paths the scenario was written with. */
  issues: ScenarioIssue[];
  /**
   * A value of the right shape, for the checks of meaning only, and which of their problems are worth reporting (at the
   * key paths the scenario was written with); absent when the value is no mapping, or still misshapen after the rounds.
   */
  mended?: { value: ScenarioInput; keep(meaning: ScenarioIssue[]): ScenarioIssue[]; rulesWhole: boolean };
}

/** Mends `value`, whose shape has the problems `first`. */
export function mend(value: unknown, first: ShapeProblem[]): Mended {
  if (!isRecord(value)) return { issues: first.map(({ path, message }) => ({ path, message })) };
  const root = copy(value, COPIED_LEVELS) as Container;
  const issues: ScenarioIssue[] = [];
  /** Each rename: the key path as written, and where its value now stands. */
  const renames: { from: Path; to: Path }[] = [];
  /** The paths of the values set aside. */
  const aside: Path[] = [];
  const written = (path: Path) =>
    renames.reduceRight((p, { from, to }) => (isPrefix(to, p) ? [...from, ...p.slice(to.length)] : p), path);

  for (let round = 0, found = first; found.length > 0; round++, found = checkShape(root)) {
    // Renames first: a key reported missing may be the one an unknown key meant, and is then not missing.
    for (const { kind, path, near } of found) {
      if (kind !== 'unknown-key') continue;
      const [parent, key] = parentOf(root, path);
      const moved = parent[key];
      delete parent[key];
      if (near === undefined || Object.hasOwn(parent, near)) aside.push(path);
      else {
        define(parent, near, moved);
        renames.push({ from: path, to: [...path.slice(0, -1), near] });
      }
    }
    for (const { kind, path, message, schema } of found) {
      const [parent, key] = parentOf(root, path);
      if (kind === 'missing' && Object.hasOwn(parent, key)) continue;
      issues.push({ path: written(path), message });
      if (kind === 'unknown-key') continue;
      define(parent, key, placeholder(schema));
      aside.push(path);
    }
    if (round === ROUNDS) return { issues };
  }
  // A problem of meaning comes from a value set aside when it lies in the same part (one rule, API user, account or
  // setting), or names an API user while one was set aside.
  const touches = (path: Path) =>
    aside.some(
      (a) =>
        isPrefix(a.slice(0, 2), path) ||
        (a[0] === 'apiUsers' && path[0] === 'rules' && path[2] === 'when' && path[3] === 'apiUser'),
    );
  return {
    issues,
    mended: {
      value: root as ScenarioInput,
      keep: (meaning) => meaning.filter((i) => !touches(i.path)).map((i) => ({ ...i, path: written(i.path) })),
      rulesWhole: !aside.some((a) => a[0] === 'rules'),
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A copy of the containers `levels` deep; keys are defined, never assigned, so `__proto__` stays a key. */
function copy(v: unknown, levels: number): unknown {
  if (levels === 0) return v;
  if (Array.isArray(v)) return v.map((x) => copy(x, levels - 1));
  return isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x, levels - 1)])) : v;
}

function parentOf(root: Container, path: Path): [Container, string | number] {
  let node = root;
  for (const seg of path.slice(0, -1)) node = node[seg] as Container;
  return [node, path[path.length - 1]];
}

function define(target: Container, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A value of the schema's shape, for a value set aside: the least that passes (its meaning is never reported). */
function placeholder(schema: TSchema): unknown {
  const s = schema as { type?: string; anyOf?: TSchema[]; const?: unknown; minimum?: number } & Partial<TObject>;
  if (s.const !== undefined) return s.const;
  if (s.anyOf?.length) return placeholder(s.anyOf[0]);
  if (s.type === 'object') {
    const out: Container = {};
    for (const key of s.required ?? []) define(out, key, placeholder(s.properties![key]));
    return out;
  }
  if (s.type === 'array') return [];
  // No string of the scenario schema must be longer than one character, and none may be empty.
  if (s.type === 'string') return 'x';
  if (s.type === 'integer' || s.type === 'number') return s.minimum ?? 0;
  // A boolean: the scenario schema has no other kind of value.
  return false;
}
