import type * as YAML from 'yaml';
import { lazy } from '../world/lazy.js';
import { compileScenario, type CompiledScenario } from './compile.js';
import { ScenarioError, type ScenarioIssue } from '../errors.js';
import { MAX_SCENARIO_BYTES, readScenarioFileSync } from './files.js';
import { quoted } from '../contract/answer.js';

/**
 * Scenario text to a compiled scenario: YAML parsed with limits (size, nesting, aliases, duplicate keys, no tags), with
 * the line of each problem.
 */

const yaml = lazy<typeof YAML>('yaml');

/** YAML aliases beyond this count are refused (an alias bomb expands exponentially). */
const MAX_ALIASES = 100;
/**
 * Flow collections (`[`, `{`) nested deeper than this are refused before parsing: the parser recurses, slowly, until
 * its stack runs out.
 */
const MAX_FLOW_DEPTH = 256;

/**
 * Parses scenario text (YAML, of which JSON is a part) and compiles it. Anything wrong (syntax, a duplicate
 * key, a custom tag, an alias bomb, a key or value the schema refuses) throws a ScenarioError whose message
 * names `source`, the line and the key. Nothing in the text is ever executed.
 */
export function loadScenarioText(text: string, source: string): CompiledScenario {
  if (Buffer.byteLength(text) > MAX_SCENARIO_BYTES) {
    throw new ScenarioError(source, [
      { path: [], message: `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB` },
    ]);
  }
  if (nestedTooDeeply(text)) {
    throw new ScenarioError(source, [
      { path: [], message: `is nested too deeply (more than ${MAX_FLOW_DEPTH} levels of [ or {)` },
    ]);
  }
  const Y = yaml();
  const lineCounter = new Y.LineCounter();
  let doc: YAML.Document.Parsed;
  try {
    // Duplicate keys are found below in one pass: the parser's own check compares each key with every other
    // (quadratic).
    doc = Y.parseDocument(text, {
      lineCounter,
      prettyErrors: true,
      uniqueKeys: false,
      strict: true,
      schema: 'core',
      merge: false,
      // A problem is an answer (below), never a line the parser prints itself (process.emitWarning).
      logLevel: 'error',
    });
  } catch (e) {
    throw new ScenarioError(source, [
      {
        path: [],
        message: e instanceof RangeError ? 'is nested too deeply' : `cannot be read as YAML: ${(e as Error).message}`,
      },
    ]);
  }
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length) {
    throw new ScenarioError(
      source,
      problems.slice(0, 10).map((p) => ({ path: [], line: p.linePos?.[0].line, message: yamlProblem(p.message) })),
    );
  }
  const duplicates = duplicateKeys(doc, lineCounter);
  if (duplicates.length) throw new ScenarioError(source, duplicates);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const message =
      e instanceof RangeError ? 'is nested too deeply' : `cannot be used: ${firstLine((e as Error).message)}`;
    // The parser names an alias with no anchor before it, but not where it stands.
    const line = /^Unresolved alias/.test((e as Error).message) ? unresolvedAliasLine(doc, lineCounter) : undefined;
    throw new ScenarioError(source, [{ path: [], line, message }]);
  }
  if (value === null || value === undefined) {
    throw new ScenarioError(source, [
      { path: [], line: 1, message: 'is empty: a scenario is a mapping with at least `name`' },
    ]);
  }
  return compileOrThrow(value, source, (path) => lineOf(doc, lineCounter, path));
}

/** Reads and compiles a scenario file (a regular file of at most 1 MiB). */
export function loadScenarioFile(file: string): CompiledScenario {
  return loadScenarioText(readScenarioFileSync(file), file);
}

/** Compiles an in-memory scenario (an options object, a JSON body); problems name the key but no line. */
export function compileOrThrow(
  value: unknown,
  source: string,
  line?: (path: (string | number)[]) => number | undefined,
): CompiledScenario {
  const { scenario, issues } = compileScenario(value);
  if (scenario) return scenario;
  // In the order of the file: the problems of shape and of meaning are found apart.
  const placed = issues.map((i): ScenarioIssue => ({ ...i, line: i.line ?? line?.(i.path) }));
  throw new ScenarioError(
    source,
    placed.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
  );
}

/**
 * Whether `[` and `{` nest deeper than MAX_FLOW_DEPTH, counted over the parser's own tokens (its lexer, which does not
 * recurse): a bracket in a quoted or plain string, a comment or a block of text is no token of its own, and does not
 * count. It stops at the first bracket too deep.
 */
function nestedTooDeeply(text: string): boolean {
  let depth = 0;
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (token === '[' || token === '{') {
      if (++depth > MAX_FLOW_DEPTH) return true;
    } else if ((token === ']' || token === '}') && depth > 0) depth--;
  }
  return false;
}

/**
 * The line of the first alias whose anchor is not set before it, in one pass in document order (an anchor counts
 * from its own node on, as the parser resolves it).
 */
function unresolvedAliasLine(doc: YAML.Document.Parsed, lc: YAML.LineCounter): number | undefined {
  const Y = yaml();
  const anchors = new Set<string>();
  let line: number | undefined;
  Y.visit(doc, {
    Node(_, node) {
      if (Y.isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        line = node.range ? lc.linePos(node.range[0]).line : undefined;
        return Y.visit.BREAK;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return line;
}

/** Keys repeated in a mapping (at most 10), each with its line; one Set per mapping, so linear in the file. */
function duplicateKeys(doc: YAML.Document.Parsed, lc: YAML.LineCounter): ScenarioIssue[] {
  const Y = yaml();
  const out: ScenarioIssue[] = [];
  try {
    Y.visit(doc, {
      Map(_, map) {
        const seen = new Set<string>();
        for (const pair of map.items) {
          const key = Y.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
          if (seen.has(key)) {
            const at = (pair.key as YAML.Node | null)?.range?.[0];
            out.push({
              path: [],
              line: at === undefined ? undefined : lc.linePos(at).line,
              message: `Map keys must be unique: ${quoted(key)} is repeated`,
            });
            if (out.length >= 10) return Y.visit.BREAK;
          }
          seen.add(key);
        }
        return undefined;
      },
    });
  } catch (e) {
    if (e instanceof RangeError) return [{ path: [], message: 'is nested too deeply' }];
    throw e;
  }
  return out;
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}

/** A YAML parser message without its own position (the line is given already), in plainer words. */
function yamlProblem(message: string): string {
  const text = firstLine(message).replace(/ at line \d+, column \d+:?$/, '');
  if (/Maximum call stack size exceeded/.test(text)) return 'is nested too deeply';
  const tag = /^Unresolved tag: (.*)$/.exec(text);
  return tag ? `custom YAML tags are not allowed (${tag[1]}); a scenario holds plain data` : text;
}

/** The line of the node at a key path; for a missing key, the line of the nearest mapping that holds it. */
function lineOf(doc: YAML.Document.Parsed, lc: YAML.LineCounter, path: (string | number)[]): number | undefined {
  const Y = yaml();
  let node: unknown = doc.contents;
  let at: [number, number, number] | undefined = (node as YAML.Node | null)?.range ?? undefined;
  for (const seg of path) {
    if (Y.isMap(node)) {
      const pair = node.items.find((p) => String(Y.isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (!pair) break;
      at = (pair.key as YAML.Node | null)?.range ?? at;
      node = pair.value;
    } else if (Y.isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      at = (node as YAML.Node | undefined)?.range ?? at;
    } else {
      break;
    }
  }
  return at ? lc.linePos(at[0]).line : undefined;
}
