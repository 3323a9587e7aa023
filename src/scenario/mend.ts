import type { TSchema } from '@sinclair/typebox';
import type { ScenarioIssue } from '../errors.js';
import type { ScenarioInput } from './schema.js';
import { checkShape, type ShapeProblem } from './validate.js';

/**
 * A scenario whose shape is wrong, mended far enough for the checks of meaning (compile.ts) to read the rest of it,
 * so that every problem is reported in one pass: an unknown key near a known one is read as that key (its value is
 * then checked as that key's), and any other value the schema refuses is set aside (a placeholder of the right
 * shape stands in for it). A problem of meaning that a set-aside value could have caused is not reported: it is
 * only reported when the rule, API user, account or setting it belongs to was read whole.
 */

type Path = (string | number)[];

/**
 * Rounds of mending: a value read as another key may show problems of its own, mended in the next round; the schema
 * nests a few levels deep (apiUsers[].ipRules.block[]), so this many rounds mend any scenario. A bound all the same.
 */
const ROUNDS = 6;

export interface Mended {
  /** Every problem of shape, at the key paths the scenario was written with. */
  issues: ScenarioIssue[];
  /**
   * A value of the right shape, for the checks of meaning only (the scenario is refused whatever they find), and the
   * problems of meaning worth reporting, at the key paths the scenario was written with; absent when the value could
   * not be mended (not a mapping at all, or still misshapen after the rounds).
   */
  mended?: { value: ScenarioInput; keep(meaning: ScenarioIssue[]): ScenarioIssue[]; rulesWhole: boolean };
}

/** Mends `value`, whose shape has the problems `first`. */
export function mend(value: unknown, first: ShapeProblem[]): Mended {
  // Not a mapping: there is nothing else to read.
  if (!isRecord(value)) return { issues: first.map(({ path, message }) => ({ path, message })) };
  const issues: ScenarioIssue[] = [];
  const doc = new Document(value);
  let found = first;
  for (let round = 0; found.length > 0; round++) {
    // Renames first: a key reported missing may be the one an unknown key meant, and is then not missing.
    for (const p of found) if (p.kind === 'unknown-key') doc.readAs(p.path, p.near);
    for (const p of found) {
      if (p.kind === 'missing' && !doc.absent(p.path)) continue;
      issues.push({ path: doc.written(p.path), message: p.message });
      if (p.kind !== 'unknown-key') doc.setAside(p.path, placeholder(p.schema));
    }
    if (round === ROUNDS) return { issues };
    found = checkShape(doc.root);
  }
  return {
    issues,
    mended: {
      value: doc.root as ScenarioInput,
      keep: (meaning) => meaning.filter((i) => !doc.touches(i.path)).map((i) => ({ ...i, path: doc.written(i.path) })),
      rulesWhole: !doc.setAsideUnder('rules'),
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The value being mended: its containers copied where they change (the caller's value is never changed; keys are
 * defined, never assigned, so `__proto__` stays a key), the renames made, and the parts set aside.
 */
class Document {
  readonly root: Record<string, unknown>;
  private readonly copied = new WeakSet<object>();
  /** Each rename: the key path as written, and where its value now stands. */
  private readonly renames: { from: Path; to: Path }[] = [];
  /** The parts of the scenario a set-aside value belongs to. */
  private readonly untrusted: Path[] = [];

  constructor(value: Record<string, unknown>) {
    this.root = copyOf(value);
    this.copied.add(this.root);
  }

  /**
   * An unknown key read as the known one it is near, unless that one is given too; otherwise set aside. (The path of
   * a problem the shape check found in this value runs through its containers, here and below.)
   */
  readAs(path: Path, near: string | undefined): void {
    const parent = this.container(path.slice(0, -1)) as Record<string, unknown>;
    const key = String(path[path.length - 1]);
    const value = parent[key];
    delete parent[key];
    if (near !== undefined && !Object.hasOwn(parent, near)) {
      define(parent, near, value);
      this.renames.push({ from: path, to: [...path.slice(0, -1), near] });
    } else {
      this.untrusted.push(path);
    }
  }

  absent(path: Path): boolean {
    return !Object.hasOwn(this.container(path.slice(0, -1)), String(path[path.length - 1]));
  }

  setAside(path: Path, value: unknown): void {
    define(this.container(path.slice(0, -1)), path[path.length - 1], value);
    this.untrusted.push(path);
  }

  /** Whether a problem of meaning at this path could come from a value set aside. */
  touches(path: Path): boolean {
    return this.untrusted.some(
      (aside) =>
        startsWith(path, partOf(aside)) ||
        (aside[0] === 'apiUsers' && path[0] === 'rules' && path[2] === 'when' && path[3] === 'apiUser'),
    );
  }

  /** Whether a value was set aside under this top-level key. */
  setAsideUnder(key: string): boolean {
    return this.untrusted.some((aside) => aside[0] === key);
  }

  /** A key path of the mended value as the scenario wrote it (renames undone, the latest first). */
  written(path: Path): Path {
    let out = path;
    for (let i = this.renames.length - 1; i >= 0; i--) {
      const { from, to } = this.renames[i];
      if (startsWith(out, to)) out = [...from, ...out.slice(to.length)];
    }
    return out;
  }

  /** The container at `path`, copied (and put in its parent's place) the first time it is changed. */
  private container(path: Path): Record<string, unknown> | unknown[] {
    let node: Record<string, unknown> | unknown[] = this.root;
    for (const seg of path) {
      let own = (node as Record<string | number, unknown>)[seg] as Record<string, unknown> | unknown[];
      if (!this.copied.has(own)) {
        own = Array.isArray(own) ? own.slice() : copyOf(own);
        this.copied.add(own);
        define(node, seg, own);
      }
      node = own;
    }
    return node;
  }
}

/** The part of the scenario a path belongs to: one rule, API user or account, one setting, or a top-level key. */
function partOf(path: Path): Path {
  return path.slice(0, 2);
}

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => String(path[i]) === String(seg));
}

function copyOf(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) define(out, key, o[key]);
  return out;
}

function define(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A value of the schema's shape, for a value set aside: the least that passes (its meaning is never reported). */
function placeholder(schema: TSchema): unknown {
  const s = schema as {
    type?: string;
    anyOf?: TSchema[];
    const?: unknown;
    properties?: Record<string, TSchema>;
    required?: string[];
    minimum?: number;
  };
  if (s.const !== undefined) return s.const;
  if (s.anyOf?.length) return placeholder(s.anyOf[0]);
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) define(out, key, placeholder(s.properties![key]));
      return out;
    }
    case 'array':
      return [];
    case 'string':
      // No string of the scenario schema must be longer than one character, and none may be empty.
      return 'x';
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    default:
      // A boolean: the scenario schema has no other kind of value.
      return false;
  }
}
