import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs' recipes are the tests' recipes: a code block marked `<!-- recipe: examples/... -->` is an excerpt of that
 * example, which CI runs (`// ...` or `# ...` stands for lines left out), so what a reader copies is what passed.
 * A block that loads a scenario per test and is not such an excerpt must say it is not run.
 */

const root = join(__dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Block {
  page: string;
  line: number;
  marker?: string;
  lang: string;
  code: string;
}

/** Every fenced code block of a page, with the HTML comment right above it, if any. */
export function blocksOf(page: string, text: string): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    const above = lines[i - 1] ?? '';
    out.push({
      page,
      line: i + 1,
      lang: open[1],
      code: lines.slice(i + 1, end).join('\n'),
      marker: /^<!-- (recipe: .+|not run: .+) -->$/.exec(above)?.[1],
    });
    i = end;
  }
  return out;
}

/** The pieces of an excerpt: the lines between `// ...` (or `# ...`) lines, each as it must stand in the file. */
export function pieces(code: string): string[] {
  return code
    .split(/^[ \t]*(?:\/\/|#) \.\.\.[ \t]*$/m)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p !== '');
}

const blocks = pages.flatMap((page) => blocksOf(page, readFileSync(join(root, page), 'utf8')));
const recipes = blocks.filter((b) => b.marker?.startsWith('recipe: '));

describe("the docs' recipes", () => {
  it('there are recipes for every runner the docs show a scenario per test with', () => {
    const files = new Set(recipes.map((b) => b.marker!.slice('recipe: '.length)));
    for (const f of [
      'examples/jest/mfa-login.test.js',
      'examples/vitest/mfa.test.ts',
      'examples/vitest/global-setup.ts',
      'examples/python/test_mfa.py',
      'examples/python/parallel/conftest.py',
      'examples/java/junit/LockedAccountTest.java',
      'examples/php/MfaSimTest.php',
      'examples/php/parallel/WorkerTestCase.php',
    ]) {
      expect(files, f).toContain(f);
    }
  });

  it.each(recipes.map((b) => [`${b.page}:${b.line} (${b.marker})`, b]))(
    '%s is an excerpt of its example, word for word',
    (_, b) => {
      const file = readFileSync(join(root, b.marker!.slice('recipe: '.length)), 'utf8');
      const parts = pieces(b.code);
      expect(parts.length).toBeGreaterThan(0);
      let from = 0;
      for (const part of parts) {
        const at = file.indexOf(part, from);
        expect(at, `not in the file (or not in this order):\n${part}`).toBeGreaterThanOrEqual(0);
        from = at + part.length;
      }
    },
  );

  it('a block that loads a scenario per test is a recipe, or says it is not run', () => {
    const perTest = blocks.filter(
      (b) =>
        ['js', 'ts', 'python', 'java', 'php'].includes(b.lang) &&
        /beforeEach|@BeforeEach|def setUp\(|function setUp\(|autouse/.test(b.code) &&
        /loadScenario\(|load_scenario\(|\/__sim\/scenario|"scenario"/.test(b.code),
    );
    expect(perTest.length).toBeGreaterThan(3);
    const unmarked = perTest.filter((b) => b.marker === undefined).map((b) => `${b.page}:${b.line}`);
    expect(unmarked).toEqual([]);
  });

  it('the excerpt check itself: a changed line, lines out of order, and a missing piece are refused', () => {
    const file = 'a\nb\nc\nd\n';
    const holds = (code: string) => {
      let from = 0;
      return pieces(code).every((p) => {
        const at = file.indexOf(p, from);
        from = at + p.length;
        return at >= 0;
      });
    };
    expect(holds('a\nb\n// ...\nd')).toBe(true);
    expect(holds('a\nB')).toBe(false);
    expect(holds('c\n# ...\na')).toBe(false);
    expect(holds('a\nc')).toBe(false);
    expect(pieces('x\n  // ...\ny')).toEqual(['x', 'y']);
  });
});
