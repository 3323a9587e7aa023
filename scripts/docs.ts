/**
 * Writes the generated parts of the README from the code: the code table and the list of shipped scenarios.
 * `npm run docs` rewrites them; a test fails when the README is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODES, isTransportCode } from '../src/codes.js';
import { loadScenarioFile } from '../src/scenario/load.js';
import { shippedScenarioDir, shippedScenarioNames } from '../src/scenario/catalog.js';

const README = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'README.md');

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function codeTable(): string {
  const rows = CODES.filter((c) => !isTransportCode(c)).map(
    (c) => `| ${c.code} | ${c.http} | ${cell(c.title)} | ${c.scope ? c.scope.join(', ') : 'all'} | \`${c.check}\` | ${cell(c.explain)} |`,
  );
  const transport = CODES.filter(isTransportCode).map((c) => `| ${c.code} | ${c.http} | ${cell(c.title)} | ${cell(c.explain)} |`);
  return [
    '| Code | HTTP | Meaning | Operations | Check | When the simulator answers it |',
    '|---:|---:|---|---|---|---|',
    ...rows,
    '',
    "Answers of the HTTP layer, before the service is reached (the document shows none; the code is minus the HTTP status):",
    '',
    '| Code | HTTP | Meaning | When |',
    '|---:|---:|---|---|',
    ...transport,
  ].join('\n');
}

export function scenarioList(): string {
  return shippedScenarioNames()
    .map((n) => {
      const sc = loadScenarioFile(join(shippedScenarioDir(), `${n}.yaml`));
      return `- \`${n}\`: ${cell(sc.description ?? '')}`;
    })
    .join('\n');
}

/** The README with its generated sections filled in. */
export function generatedReadme(current: string): string {
  return replaceBlock(replaceBlock(current, 'codes', codeTable()), 'scenarios', scenarioList());
}

function replaceBlock(text: string, name: string, content: string): string {
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README.md has no ${start} ... ${end} block`);
  return `${text.slice(0, a + start.length)}\n${content}\n${text.slice(b)}`;
}

if (process.argv[1] && /docs\.ts$/.test(process.argv[1])) {
  const current = readFileSync(README, 'utf8');
  const next = generatedReadme(current);
  if (next !== current) writeFileSync(README, next);
  console.log(next === current ? 'README.md is up to date' : 'README.md updated');
}
