import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors } from '../../scripts/check-links.js';

/**
 * The code says why by pointing at the documentation (`docs/behaviour.md#order-of-checks`): every such reference in a
 * source, test, benchmark or script names a page of the repository and a section that page has, and none points at a
 * document the repository does not hold.
 */

const ROOT = join(__dirname, '..', '..');
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'src', 'test', 'bench', 'scripts'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  // This file writes references and the words it looks for as examples.
  .filter((f) => /\.(ts|mjs|js)$/.test(f) && existsSync(join(ROOT, f)) && f !== 'test/package/doc-references.test.ts');

/** `docs/behaviour.md#a` and the further anchors of the same page after it (`docs/behaviour.md#a, #b`). */
const REFERENCE = /\b(docs\/[\w/.-]+\.md)((?:#[\w-]+)(?:, #[\w-]+)*)?/g;

/** The comments of a source: lines of a block comment, and what follows `// ` (a test's own data is no reference). */
const comments = (text: string) =>
  text
    .split('\n')
    .map((line) => (/^\s*(\*|\/\*)/.test(line) ? line : (line.split(/(?<![:'"`])\/\/ /)[1] ?? '')))
    .join('\n');

describe('references from the code to the documentation', () => {
  const found = files.flatMap((file) =>
    [...comments(readFileSync(join(ROOT, file), 'utf8')).matchAll(REFERENCE)].map((m) => ({
      file,
      page: m[1],
      anchors: m[2]?.match(/#[\w-]+/g)?.map((a) => a.slice(1)) ?? [],
    })),
  );

  it('are many: the request path, the checks and the world cite the page of what they keep', () => {
    expect(found.filter((r) => r.page === 'docs/behaviour.md').length).toBeGreaterThan(30);
    expect(new Set(found.filter((r) => r.file.startsWith('src/')).map((r) => r.file)).size).toBeGreaterThan(15);
  });

  it('each names a page of the repository and a section it has', () => {
    const broken = found.flatMap((r) => {
      if (!existsSync(join(ROOT, r.page))) return [`${r.file}: ${r.page} (no such page)`];
      const has = anchors(join(ROOT, r.page));
      return r.anchors.filter((a) => !has.has(a)).map((a) => `${r.file}: ${r.page}#${a} (no such section)`);
    });
    expect(broken).toEqual([]);
  });

  it('none cites the numbered decisions of a document outside the repository', () => {
    const outside = files.filter((file) =>
      /decisions §|decisions\.md|service-interface\.md/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(outside).toEqual([]);
  });
});
