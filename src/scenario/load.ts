import { existsSync } from 'node:fs';
import type * as YAML from 'yaml';
import { quoted } from '../contract/response.js';
import { ScenarioError, type ScenarioIssue } from '../contract/errors.js';
import { lazy } from '../files/lazy.js';
import { findShippedScenario, isScenarioText } from './catalog.js';
import { compileScenario, type CompiledScenario } from './compile.js';
import { MAX_SCENARIO_BYTES, readScenarioFileSync } from './files.js';
import type { ScenarioSource } from './registry.js';
import type { ScenarioInput } from './schema.js';

const yaml = lazy<typeof YAML>('yaml');

/** YAML aliases beyond this count are refused (an alias bomb expands exponentially). */
const MAX_ALIASES = 100;
/** `[` and `{` nested deeper are refused before parsing: the parser recurses until its stack runs out. */
const MAX_FLOW_DEPTH = 256;
const TOO_DEEP = 'is nested too deeply';
type Line = (node: unknown) => number | undefined;
const NOT_A_SCENARIO = 'is neither a scenario file nor the name of a shipped scenario';
const NOT_A_SOURCE = 'must be a shipped scenario name, a file, a scenario object, YAML text or { text }';

/** Parses scenario text (YAML, of which JSON is a part) and compiles it. */
export function loadScenarioText(text: string, source: string): CompiledScenario {
  const refuse = (message: string, line?: number) => new ScenarioError(source, [{ path: [], line, message }]);
  if (Buffer.byteLength(text) > MAX_SCENARIO_BYTES)
    throw refuse(`the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB`);
  if (nestedTooDeeply(text)) throw refuse(`${TOO_DEEP} (more than ${MAX_FLOW_DEPTH} levels of [ or {)`);
  const Y = yaml();
  const lc = new Y.LineCounter();
  const line: Line = (node) => {
    const at = (node as YAML.Node | null)?.range?.[0];
    return at === undefined ? undefined : lc.linePos(at).line;
  };
  let doc: YAML.Document.Parsed | undefined;
  let nodes: ReturnType<typeof readNodes> | undefined;
  let value: unknown;
  try {
    // uniqueKeys: repeats are found by readNodes, linearly (the parser compares all pairs); logLevel: no printing.
    const options = { lineCounter: lc, uniqueKeys: false, strict: true, schema: 'core', merge: false } as const;
    doc = Y.parseDocument(text, { ...options, prettyErrors: true, logLevel: 'error' });
    const problems = [...doc.errors, ...doc.warnings].slice(0, 10);
    const issues = problems.map((p) => ({ path: [], line: p.linePos?.[0].line, message: yamlProblem(p.message) }));
    if (issues.length) throw new ScenarioError(source, issues);
    nodes = readNodes(doc, line);
    if (nodes.duplicates.length) throw new ScenarioError(source, nodes.duplicates);
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    if (e instanceof RangeError) throw refuse(TOO_DEEP);
    const message = (e as Error).message;
    if (!nodes) throw refuse(`cannot be read as YAML: ${message}`);
    // The parser names an alias with no anchor before it, but not where it stands.
    const alias = message.startsWith('Unresolved alias') ? nodes.alias : undefined;
    throw refuse(`cannot be used: ${firstLine(message)}`, alias);
  }
  if (value === null || value === undefined) throw refuse('is empty: a scenario is a mapping with at least `name`', 1);
  return compileOrThrow(value, source, (path) => lineOf(doc, line, path));
}

/** Reads and compiles a scenario file (a regular file of at most 1 MiB). */
export function loadScenarioFile(file: string): CompiledScenario {
  return loadScenarioText(readScenarioFileSync(file), file);
}

/** Compiles an in-memory scenario (an options object, a JSON body); problems name the key, and the line if known. */
export function compileOrThrow(
  value: unknown,
  source: string,
  line?: (path: (string | number)[]) => number | undefined,
): CompiledScenario {
  const { scenario, issues } = compileScenario(value);
  if (scenario) return scenario;
  // In the order of the file: the problems of shape and of meaning are found apart.
  const placed = issues.map((i): ScenarioIssue => ({ ...i, line: i.line ?? line?.(i.path) }));
  placed.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  throw new ScenarioError(source, placed);
}

/** Compiles a scenario from any of the ways it can be given; anything wrong is a ScenarioError naming where. */
export function resolveScenario(source: ScenarioSource): CompiledScenario {
  if (source === null || (typeof source !== 'string' && typeof source !== 'object'))
    throw new ScenarioError('scenario', [{ path: [], message: NOT_A_SOURCE }]);
  if (typeof source === 'string') {
    if (isScenarioText(source)) return loadScenarioText(source, 'scenario text');
    return loadScenarioFile(nameOrFile(source, NOT_A_SCENARIO));
  }
  const { text, source: label, name } = source as { text?: unknown; source?: string; name?: unknown };
  if (typeof text === 'string' && Object.keys(source).every((k) => k === 'text' || k === 'source'))
    return loadScenarioText(text, label ?? 'scenario');
  return compileOrThrow(source, typeof name === 'string' ? name : 'scenario');
}

/** The scenario keys given as options (flags) that stay when another scenario is loaded. */
export function pinnedKeys(opts: Partial<ScenarioInput>): Partial<ScenarioInput> {
  const keys = ['token', 'strict', 'responseStyle', 'hints'] as const;
  return Object.fromEntries(keys.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]));
}

/** The scenario a simulator starts with: a named or file scenario, with the options' scenario keys on top. */
export function scenarioFromOptions(
  opts: Record<string, unknown> & { scenario?: string },
  runKeys: readonly string[],
): CompiledScenario {
  // Own keys kept as they are (`__proto__` too), so that the scenario's schema refuses what it refuses in a scenario.
  const inline = Object.fromEntries(Object.entries(opts).filter(([k, v]) => !runKeys.includes(k) && v !== undefined));
  if (opts.scenario === undefined) {
    const description =
      'Everything works. One ready API user (its id and secret are printed at start), every account active, the clock right.';
    return compileOrThrow({ name: 'default', description, ...inline }, 'options');
  }
  const file = nameOrFile(opts.scenario, `${NOT_A_SCENARIO} (see \`mfa-sim --list-scenarios\`)`);
  const base = loadScenarioFile(file);
  return Object.keys(inline).length === 0 ? base : compileOrThrow({ ...base.input, ...inline }, file);
}

/** A file by its path, else a shipped scenario's by name. */
function nameOrFile(name: string, refusal: string): string {
  const file = existsSync(name) ? name : findShippedScenario(name);
  if (!file) throw new ScenarioError(name, [{ path: [], message: refusal }]);
  return file;
}

/** Whether `[` and `{` nest too deep, counted over the lexer's tokens (it does not recurse; a quoted `[` is none). */
function nestedTooDeeply(text: string): boolean {
  let depth = 0;
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (token === '[' || token === '{') {
      if (++depth > MAX_FLOW_DEPTH) return true;
    } else if ((token === ']' || token === '}') && depth > 0) depth--;
  }
  return false;
}

/** Keys repeated in a mapping (at most 10; a Set per mapping, so linear), and the first alias before its anchor. */
function readNodes(doc: YAML.Document.Parsed, line: Line) {
  const Y = yaml();
  const out: { duplicates: ScenarioIssue[]; alias?: number } = { duplicates: [] };
  const anchors = new Set<string>();
  Y.visit(doc, (_, node) => {
    if (Y.isAlias(node) && !anchors.has(node.source)) out.alias ??= line(node);
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (anchor) anchors.add(anchor);
    if (!Y.isMap(node)) return undefined;
    const seen = new Set<string>();
    for (const { key } of node.items) {
      const name = keyName(key);
      const message = `Map keys must be unique: ${quoted(name)} is repeated`;
      if (seen.has(name)) out.duplicates.push({ path: [], line: line(key), message });
      seen.add(name);
    }
    return out.duplicates.length >= 10 ? Y.visit.BREAK : undefined;
  });
  out.duplicates = out.duplicates.slice(0, 10);
  return out;
}

const keyName = (key: unknown) => String(yaml().isScalar(key) ? key.value : key);
const firstLine = (s: string) => s.split('\n')[0].trim();

/** A YAML parser message without its own position (the line is given already), in plainer words. */
function yamlProblem(message: string): string {
  const text = firstLine(message).replace(/ at line \d+, column \d+:?$/, '');
  if (/Maximum call stack size exceeded/.test(text)) return TOO_DEEP;
  const tag = /^Unresolved tag: (.*)$/.exec(text);
  return tag ? `custom YAML tags are not allowed (${tag[1]}); a scenario holds plain data` : text;
}

/** The line of the key at a path; for a missing key, the line of the nearest mapping that holds it. */
function lineOf(doc: YAML.Document | undefined, line: Line, path: (string | number)[]) {
  const Y = yaml();
  let node: unknown = doc?.contents;
  let at = line(node);
  for (const seg of path) {
    const pair = Y.isMap(node) ? node.items.find((p) => keyName(p.key) === String(seg)) : undefined;
    if (pair) [node, at] = [pair.value, line(pair.key) ?? at];
    else if (Y.isSeq(node) && typeof seg === 'number') [node, at] = [node.items[seg], line(node.items[seg]) ?? at];
    else break;
  }
  return at;
}
