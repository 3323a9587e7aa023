/**
 * Writes the reference parts of the documentation from the code, never by hand: the code table, the client findings,
 * the shipped scenarios, the scenario keys (from the one schema), the request bodies (bodies.ts), the command line's
 * help (the text `--help` prints), the probe's steps and help, and the in-process API (TypeDoc, into docs/api/,
 * which is not kept in the repository: packing runs this script, so the package carries it). `npm run docs` rewrites
 * them; tests fail when a block is stale and when an export has no doc comment.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODES, codeInfo, isTransportCode } from '../src/contract/codes.js';
import { FINDING_KINDS } from '../src/run/finding-types.js';
import { STEPS } from '../src/proxy/probe.js';
import { shippedScenarioDir, shippedScenarioNames } from '../src/scenario/catalog.js';
import { loadScenarioFile } from '../src/scenario/load.js';
import { ScenarioSchema } from '../src/scenario/schema.js';
import { FLAGS, flagUsage, START_KEYS } from '../src/cli/flags.js';
import { RunOptionsSchema } from '../src/simulator/options.js';
import { bodiesPage } from './bodies.js';

export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function codeTable(): string {
  const rows = CODES.filter((c) => !isTransportCode(c)).map(
    (c) =>
      `| ${c.code} | ${c.http} | ${cell(c.title)} | ${c.scope ? c.scope.join(', ') : 'all'} | \`${c.check}\` | ${cell(c.explain)} |`,
  );
  const transport = CODES.filter(isTransportCode).map(
    (c) => `| ${c.code} | ${c.http} | ${cell(c.title)} | ${cell(c.explain)} |`,
  );
  return [
    '| Code | HTTP | Meaning | Operations | Check | When the simulator answers it |',
    '|---:|---:|---|---|---|---|',
    ...rows,
    '',
    'Answers of the HTTP layer, before the service is reached (the document shows none; the code is minus the HTTP status):',
    '',
    '| Code | HTTP | Meaning | When |',
    '|---:|---:|---|---|',
    ...transport,
  ].join('\n');
}

export function scenarioList(): string {
  return shippedScenarioNames()
    .map((n) => `- \`${n}\`: ${cell(loadScenarioFile(join(shippedScenarioDir(), `${n}.yaml`)).description ?? '')}`)
    .join('\n');
}

interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  minimum?: number;
  maxLength?: number;
}

/** A schema's type in words: `string`, `one of: a, b`, `list of ...`, `mapping of string to ...`. */
function typeWords(s: Schema): string {
  if (s.anyOf) {
    const consts = s.anyOf.filter((a) => a.const !== undefined).map((a) => String(a.const));
    // Words and other shapes side by side (a person in `people:`): the words once, then the shapes.
    const others = s.anyOf.filter((a) => a.const === undefined).map(typeWords);
    return [...(consts.length ? [`one of: ${consts.join(', ')}`] : []), ...others].join(' or ');
  }
  if (s.type === 'array') return `list of ${s.items ? typeWords(s.items) : 'values'}`;
  if (s.type === 'object' && s.patternProperties)
    return `mapping of string to ${typeWords(Object.values(s.patternProperties)[0])}`;
  if (s.type === 'object') return 'mapping';
  if (s.type === 'integer') return s.minimum !== undefined ? `whole number, at least ${s.minimum}` : 'whole number';
  return s.type ?? 'any';
}

/** Every key of the scenario schema, one row each, with its type, whether it is required, and its description. */
export function scenarioKeys(): string {
  const rows: string[] = ['| Key | Type | Required | What it is |', '|---|---|---|---|'];
  const walk = (s: Schema, path: string) => {
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      const at = path ? `${path}.${key}` : key;
      rows.push(
        `| \`${at}\` | ${cell(typeWords(child))} | ${s.required?.includes(key) ? 'yes' : ''} | ${cell(child.description ?? '')} |`,
      );
      if (child.type === 'object' && child.properties) walk(child, at);
      if (child.type === 'array' && child.items?.properties) walk(child.items, `${at}[]`);
    }
  };
  walk(ScenarioSchema, '');
  return rows.join('\n');
}

/** The text `mfa-sim --help` prints (from the built command line: `npm run docs` builds first). */
export function cliHelp(): string {
  // The help has one width whatever the terminal (src/cli/flags.ts), so the page matches every terminal's --help.
  const text = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.cjs'), '--help'], { encoding: 'utf8' });
  return ['```', text.trimEnd(), '```'].join('\n');
}

/** Every flag of the command line, with its variable, the option it sets in process, and its default. */
export function flagTable(): string {
  const starts = new Set<string>(START_KEYS);
  const rows = FLAGS.map((f) => {
    const what = `${f.description}${f.choices ? ` (${f.choices.join(', ')})` : ''}${f.list ? ` (repeatable, or several separated by \`${f.list}\`)` : ''}`;
    const env = f.env ? `\`${f.env}${f.negated ? '=off' : ''}\`` : '';
    return `| \`${cell(flagUsage(f))}\` | ${env} | ${starts.has(f.key) ? `\`${f.key}\`` : ''} | ${f.default ?? ''} | ${cell(what)} |`;
  });
  return [
    '| Flag | Environment variable | In process | Default | What it sets |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Every run option of `startSimulator` (the scenario keys aside), with its type, bounds and default. */
export function runOptionTable(): string {
  const typeOf = (s: Schema & { maximum?: number }): string => {
    if (s.type === 'integer') return `whole number, ${s.minimum} to ${s.maximum}`;
    if (s.type === 'array') return `list of ${typeOf(s.items!)}s`;
    return s.type ?? 'any';
  };
  const rows = Object.entries(RunOptionsSchema.properties).map(([key, s]) => {
    const schema = s as unknown as Schema & { default?: string | number };
    return `| \`${key}\` | ${typeOf(schema)} | ${schema.default === undefined ? '' : `\`${String(schema.default)}\``} | ${cell(schema.description ?? '')} |`;
  });
  return ['| Option | Type | Default | What it sets |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Every client finding the doctor records: its id, severity, and the explanation it gives (proxy mode's `service-`
 * kinds, `service`: docs/proxy.md).
 */
export function findingTable(service = false): string {
  return [
    '| Id | Severity | What it means, and the fix |',
    '|---|---|---|',
    ...Object.entries(FINDING_KINDS)
      .filter(([id]) => id.startsWith('service-') === service)
      .map(([id, k]) => `| \`${id}\` | ${k.severity} | ${cell(k.explanation)} |`),
  ].join('\n');
}

/** What each step of `mfa-sim probe` sends, and the answer a faithful service gives (docs/proxy.md). */
export function probeSteps(): string {
  return [
    '| # | Step | What it sends | A faithful service answers |',
    '|---:|---|---|---|',
    ...STEPS.map(
      (s, i) => `| ${i + 1} | ${cell(s.name)} | ${cell(s.sends)} | ${s.expect} ${cell(codeInfo(s.expect)!.title)} |`,
    ),
  ].join('\n');
}

/** The text `mfa-sim probe --help` prints (from the built command line). */
export function probeHelp(): string {
  const text = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.cjs'), 'probe', '--help'], { encoding: 'utf8' });
  return ['```', text.trimEnd(), '```'].join('\n');
}

/** The pages with generated blocks, and what fills each block. */
export const BLOCKS: Record<string, Record<string, () => string>> = {
  'docs/client-doctor.md': { findings: () => findingTable() },
  'docs/status-codes.md': { codes: codeTable },
  'docs/scenarios.md': { scenarios: scenarioList, 'scenario-keys': scenarioKeys },
  'docs/command-line.md': { 'cli-help': cliHelp, flags: flagTable },
  'docs/in-process-api.md': { 'run-options': runOptionTable },
  'docs/requests.md': { bodies: bodiesPage },
  'docs/proxy.md': { 'service-findings': () => findingTable(true), 'probe-steps': probeSteps, 'probe-help': probeHelp },
};

/** A page with its generated blocks filled in. */
export function filled(page: string, current: string): string {
  let text = current;
  for (const [name, make] of Object.entries(BLOCKS[page])) text = replaceBlock(page, text, name, make());
  return text;
}

function replaceBlock(page: string, text: string, name: string, content: string): string {
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${page} has no ${start} ... ${end} block`);
  return `${text.slice(0, a + start.length)}\n${content}\n${text.slice(b)}`;
}

/**
 * The in-process API reference (TypeDoc and its Markdown plugin, typedoc.json), written to `out`; resolves to the
 * exports TypeDoc found without a doc comment (none is allowed).
 */
export async function apiReference(out: string): Promise<string[]> {
  const td = await import('typedoc');
  const app = await td.Application.bootstrapWithPlugins({ options: join(ROOT, 'typedoc.json'), out, logLevel: 'Warn' });
  const undocumented: string[] = [];
  const warn = app.logger.warn.bind(app.logger);
  app.logger.warn = (message: string | { toString(): string }, ...rest: unknown[]) => {
    const text = String(message);
    if (/does not have any documentation/.test(text)) undocumented.push(text);
    (warn as (...a: unknown[]) => void)(message, ...rest);
  };
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the project');
  app.validate(project);
  await app.generateOutputs(project);
  return undocumented;
}

/** Every file under a folder, by its path inside it. */
export function filesOf(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) Object.assign(out, filesOf(join(dir, e.name), `${prefix}${e.name}/`));
    else out[`${prefix}${e.name}`] = readFileSync(join(dir, e.name), 'utf8');
  }
  return out;
}

async function main(): Promise<void> {
  for (const page of Object.keys(BLOCKS)) {
    const file = join(ROOT, page);
    const current = readFileSync(file, 'utf8');
    const next = filled(page, current);
    if (next !== current) writeFileSync(file, next);
    console.log(`${page}: ${next === current ? 'up to date' : 'updated'}`);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'mfa-sim-api-'));
  try {
    const undocumented = await apiReference(tmp);
    if (undocumented.length) throw new Error(`exports without a doc comment:\n${undocumented.join('\n')}`);
    rmSync(join(ROOT, 'docs', 'api'), { recursive: true, force: true });
    execFileSync('cp', ['-r', tmp, join(ROOT, 'docs', 'api')]);
    console.log('docs/api: written');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && /docs\.ts$/.test(process.argv[1])) {
  main().catch((e) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
