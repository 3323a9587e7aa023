import type { TObject, TSchema } from '@sinclair/typebox';
import type { ScenarioIssue } from '../contract/errors.js';
import { isObject } from '../contract/response.js';
import type { ScenarioInput } from './schema.js';
import { checkShape, isPrefix, type ShapeProblem } from './validate.js';

type Path = (string | number)[];
type Container = Record<string | number, unknown>;
type Meaning = (mended: ScenarioInput, rulesWhole: boolean) => ScenarioIssue[];

/** A value read as another key may show problems of its own, mended in the next round; the schema nests 5 deep. */
const ROUNDS = 6;
/** Mending changes containers this deep at most (apiUsers[0].ipRules.block): a bound, as a value may hold a cycle. */
const COPIED_LEVELS = 5;

/** Every problem of a misshapen scenario: of shape (`first`), then of meaning once mended (misspelled keys renamed). */
export function mend(value: unknown, first: ShapeProblem[], meaning: Meaning): ScenarioIssue[] {
  if (!isObject(value)) return first.map(({ path, message }) => ({ path, message }));
  const root = copy(value, COPIED_LEVELS) as Container;
  const issues: ScenarioIssue[] = [];
  const renames: { from: Path; to: Path }[] = [];
  const aside: Path[] = [];
  const written = (path: Path) =>
    renames.reduceRight((p, { from, to }) => (isPrefix(to, p) ? [...from, ...p.slice(to.length)] : p), path);
  for (let round = 0, found = first; found.length > 0; round++, found = checkShape(root)) {
    if (round > ROUNDS) return issues;
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
  }
  // An API user set aside may be the one a rule names.
  const usersAside = aside.some((a) => a[0] === 'apiUsers');
  const touches = (p: Path) => aside.some((a) => isPrefix(a.slice(0, 2), p)) || (usersAside && p[3] === 'apiUser');
  const kept = meaning(root as ScenarioInput, !aside.some((a) => a[0] === 'rules')).filter((i) => !touches(i.path));
  return [...issues, ...kept.map((i) => ({ ...i, path: written(i.path) }))];
}

/** A copy of the containers `levels` deep; keys are defined, never assigned, so `__proto__` stays a key. */
function copy(v: unknown, levels: number): unknown {
  if (levels === 0) return v;
  if (Array.isArray(v)) return v.map((x) => copy(x, levels - 1));
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x, levels - 1)])) : v;
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
  return false;
}
