import { readFileSync, statSync } from 'node:fs';
import type * as YAML from 'yaml';
import { lazy } from '../world/lazy.js';
import { compileScenario, type CompiledScenario } from './compile.js';
import { ScenarioError, type ScenarioIssue } from './errors.js';

const yaml = lazy<typeof YAML>('yaml');

/** Scenario files larger than this are refused before they are parsed. */
export const MAX_SCENARIO_BYTES = 1024 * 1024;
/** YAML aliases beyond this count are refused (an alias bomb expands exponentially). */
const MAX_ALIASES = 100;

/**
 * Parses scenario text (YAML, of which JSON is a part) and compiles it. Anything wrong (syntax, a duplicate
 * key, a custom tag, an alias bomb, a key or value the schema refuses) throws a ScenarioError whose message
 * names `source`, the line and the key. Nothing in the text is ever executed.
 */
export function loadScenarioText(text: string, source: string): CompiledScenario {
  if (Buffer.byteLength(text) > MAX_SCENARIO_BYTES) {
    throw new ScenarioError(source, [{ path: [], message: `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB` }]);
  }
  const Y = yaml();
  const lineCounter = new Y.LineCounter();
  let doc: YAML.Document.Parsed;
  try {
    doc = Y.parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, strict: true, schema: 'core', merge: false });
  } catch (e) {
    throw new ScenarioError(source, [{ path: [], message: `cannot be read as YAML: ${(e as Error).message}` }]);
  }
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length) {
    throw new ScenarioError(
      source,
      problems.slice(0, 10).map((p) => ({ path: [], line: p.linePos?.[0].line, message: yamlProblem(p.message) })),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const message = e instanceof RangeError ? 'is nested too deeply' : `cannot be used: ${firstLine((e as Error).message)}`;
    throw new ScenarioError(source, [{ path: [], message }]);
  }
  if (value === null || value === undefined) {
    throw new ScenarioError(source, [{ path: [], line: 1, message: 'is empty: a scenario is a mapping with at least `name`' }]);
  }
  return compileOrThrow(value, source, (path) => lineOf(doc, lineCounter, path));
}

/** Reads and compiles a scenario file. */
export function loadScenarioFile(file: string): CompiledScenario {
  let text: string;
  try {
    if (statSync(file).size > MAX_SCENARIO_BYTES) {
      throw new ScenarioError(file, [{ path: [], message: `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB` }]);
    }
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    throw new ScenarioError(file, [{ path: [], message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
  return loadScenarioText(text, file);
}

/** Compiles an in-memory scenario (an options object, a JSON body); problems name the key but no line. */
export function compileOrThrow(value: unknown, source: string, line?: (path: (string | number)[]) => number | undefined): CompiledScenario {
  const { scenario, issues } = compileScenario(value);
  if (scenario) return scenario;
  throw new ScenarioError(
    source,
    issues.map((i): ScenarioIssue => ({ ...i, line: i.line ?? line?.(i.path) })),
  );
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}

/** A YAML parser message without its own position (the line is given already), in plainer words. */
function yamlProblem(message: string): string {
  const text = firstLine(message).replace(/ at line \d+, column \d+:?$/, '');
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
