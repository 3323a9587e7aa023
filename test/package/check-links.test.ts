import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { pages, repositoryAt, repositoryOnlyReferences, type Repository } from '../../scripts/check-links.js';

/**
 * The check `.ci/run` runs on the unpacked package: no page sends a package user to a file or an npm script of the
 * repository that the package does not hold, unless it says they are in a clone of the repository.
 */

const root = join(__dirname, '..', '..');
const made = mkdtempSync(join(tmpdir(), 'mfa-sim-pages-'));
afterAll(() => rmSync(made, { recursive: true, force: true }));

/** A package laid out from `files` (path: text), in a folder of its own. */
function packageOf(files: Record<string, string>): string {
  const dir = mkdtempSync(join(made, 'package-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const repository: Repository = {
  paths: new Set([
    'src',
    'src/contract/codes.ts',
    'src/doctor',
    'src/run/report.ts',
    '.ci',
    '.ci/run',
    'test',
    'test/browser',
    'test/browser/ui.test.ts',
    'docs',
    'docs/page.md',
    'scenarios',
    'scenarios/default.yaml',
  ]),
  scripts: new Set(['start', 'test', 'bench', 'screenshot', 'bench:profile']),
};

function referencesOf(page: string, text: string, more: Record<string, string> = {}): string[] {
  const dir = packageOf({ 'package.json': '{}', 'scenarios/default.yaml': 'name: default\n', [page]: text, ...more });
  return repositoryOnlyReferences(dir, join(dir, page), repository);
}

describe('references to what only the repository holds', () => {
  it('names a file the package lacks, with the page and line', () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# Page\n\nIntro.\n\nThe codes are in `src/contract/codes.ts`, tested by\n`test/browser/`.\n',
      ),
    ).toEqual([
      'docs/page.md:5: src/contract/codes.ts (in the repository, not in the package)',
      'docs/page.md:6: test/browser/ (in the repository, not in the package)',
    ]);
  });

  it('names a glob by the folders before its wildcard, .ci/run, and a folder at the end of a sentence', () => {
    expect(
      referencesOf(
        'README.md',
        '# T\n\nLead.\n\nRun `.ci/run`; mutate `src/doctor/**/*.ts`, `src/*.ts`, `src/code*.ts` and */codes.ts.\nThe code is in src/.\n',
      ),
    ).toEqual([
      'README.md:5: .ci/run (in the repository, not in the package)',
      'README.md:5: src/doctor/**/*.ts (in the repository, not in the package)',
      'README.md:5: src/*.ts (in the repository, not in the package)',
      'README.md:5: src/code*.ts (in the repository, not in the package)',
      'README.md:6: src/ (in the repository, not in the package)',
    ]);
  });

  it('names npm scripts of the repository, in text and in the code block a paragraph introduces', () => {
    const page =
      '# T\n\nLead.\n\nThen:\n\n```sh\nnpm run bench -- --smoke\nnpm run bench:profile\n```\n\n`npm run screenshot` remakes it.\n';
    expect(referencesOf('docs/page.md', page)).toEqual([
      "docs/page.md:8: npm run bench (an npm script of the repository, not of a package user's project)",
      "docs/page.md:9: npm run bench:profile (an npm script of the repository, not of a package user's project)",
      "docs/page.md:12: npm run screenshot (an npm script of the repository, not of a package user's project)",
    ]);
  });

  it("leaves alone the scripts every project has and the user's own", () => {
    expect(
      referencesOf(
        'README.md',
        '# T\n\nLead.\n\n`npm test`, `npm run test`, `npm start`, `npm run test:integration`, `npm ci`.\n',
      ),
    ).toEqual([]);
  });

  it('accepts what the page places in a clone: the passage, its code block, its section, or the page lead', () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nLead.\n\nIn a clone of the repository, `src/contract/codes.ts` and `npm test`.\n',
      ),
    ).toEqual([]);
    expect(
      referencesOf('docs/page.md', '# T\n\nLead.\n\nIn a clone of this repository:\n\n```sh\nnpm run bench\n```\n'),
    ).toEqual([]);
    const section =
      '# T\n\nLead.\n\n## Tests\n\nIn a clone of the repository, `npm test` runs:\n\n- `test/browser/`\n\n## Next\n\n`src/contract/codes.ts`\n';
    expect(referencesOf('docs/page.md', section)).toEqual([
      'docs/page.md:13: src/contract/codes.ts (in the repository, not in the package)',
    ]);
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nThis page walks the source, in a clone of the repository.\n\n## A\n\n`src/contract/codes.ts`, `npm run bench`\n',
      ),
    ).toEqual([]);
  });

  it('ends a passage at a blank line, spaces only or not, and reads a line with # in it as text', () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nLead.\n\nIn a clone of the repository, `npm run bench`.\n   \n`src/contract/codes.ts` # the table\n',
      ),
    ).toEqual(['docs/page.md:7: src/contract/codes.ts (in the repository, not in the package)']);
  });

  it('keeps a code block whole: blank lines and # comments in it, indented in a list, up to its closing fence', () => {
    const page =
      "# T\n\nLead.\n\n- In a clone of the repository:\n\n  ```sh\n  # the whole CI\n\n  echo '```'\n  bash .ci/run\n  ```\n\nThen `src/contract/codes.ts`.\n";
    expect(referencesOf('docs/page.md', page)).toEqual([
      'docs/page.md:14: src/contract/codes.ts (in the repository, not in the package)',
    ]);
  });

  it('opens a code block only at a fence that starts its line', () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nLead.\n\nIn a clone of the repository, code goes in ``` fences.\n\n`src/contract/codes.ts`\n',
      ),
    ).toEqual(['docs/page.md:7: src/contract/codes.ts (in the repository, not in the package)']);
  });

  it('takes only the first passage of a section for its intro', () => {
    const page =
      '# T\n\nLead.\n\n## A\n\nFirst.\n\nIn a clone of the repository, `npm run bench`.\n\n`src/contract/codes.ts`\n';
    expect(referencesOf('docs/page.md', page)).toEqual([
      'docs/page.md:11: src/contract/codes.ts (in the repository, not in the package)',
    ]);
  });

  it('a page with no title has no lead: its first passage speaks for what comes before the first heading only', () => {
    expect(referencesOf('docs/page.md', '`src/contract/codes.ts`\n')).toEqual([
      'docs/page.md:1: src/contract/codes.ts (in the repository, not in the package)',
    ]);
    expect(
      referencesOf('docs/page.md', 'In a clone of the repository.\n\n`src/contract/codes.ts`\n\n## A\n\n`.ci/run`\n'),
    ).toEqual(['docs/page.md:7: .ci/run (in the repository, not in the package)']);
  });

  it('does not take a code block after a heading for the section intro', () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nLead.\n\n## A\n\n```sh\nnpm run bench\n```\n\nIn a clone of the repository, too.\n',
      ),
    ).toEqual(["docs/page.md:8: npm run bench (an npm script of the repository, not of a package user's project)"]);
  });

  it("leaves alone what the package holds, what the repository does not track, and an example's own scripts", () => {
    expect(
      referencesOf(
        'docs/page.md',
        '# T\n\nLead.\n\nSee `scenarios/default.yaml`, `reports/mfa.xml`, `node_modules/mfa-sim/docs/api/`, http://127.0.0.1:8080/src/codes.ts.\n',
      ),
    ).toEqual([]);
    const example = { 'examples/demo/package.json': '{"scripts":{"bench":"node b.mjs"}}' };
    expect(
      referencesOf(
        'examples/demo/README.md',
        '# Demo\n\nCopy it.\n\n```sh\nnpm install\nnpm run bench\n```\n',
        example,
      ),
    ).toEqual([]);
    expect(referencesOf('docs/page.md', '# T\n\nLead.\n\n`npm run bench`\n', example)).toEqual([
      "docs/page.md:5: npm run bench (an npm script of the repository, not of a package user's project)",
    ]);
  });

  it("reads the pages a user starts from: the README, docs/ and each example's README", () => {
    const files = {
      'README.md': '',
      'docs/a.md': '',
      'docs/a.png': '',
      'docs/api/b.md': '',
      'examples/demo/README.md': '',
      'examples/demo/x.md': '',
      'examples/bare/x.js': '',
      'examples/x.mjs': '',
    };
    const dir = packageOf(files);
    expect(
      pages(dir)
        .map((p) => p.slice(dir.length + 1))
        .sort(),
    ).toEqual(['README.md', 'docs/a.md', 'docs/api/b.md', 'examples/demo/README.md']);
    const bare = packageOf({ 'README.md': '' });
    expect(pages(bare)).toEqual([join(bare, 'README.md')]);
  });

  it('knows the repository as git tracks it, and its npm scripts', () => {
    const own = repositoryAt(root);
    expect(
      ['src', 'src/contract/codes.ts', '.ci', '.ci/run', 'test/robustness', 'README.md'].filter(
        (p) => !own.paths.has(p),
      ),
    ).toEqual([]);
    expect(['node_modules', 'dist', '', 'src/codes', 'srccodes.ts'].filter((p) => own.paths.has(p))).toEqual([]);
    expect(own.scripts).toEqual(
      new Set(
        Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts),
      ),
    );
  });

  it('the command line fails, listing it, on a package whose page names a file only the repository holds', async () => {
    const dir = packageOf({
      'package.json': '{}',
      'README.md': '# mfa-sim\n\nLead.\n\nThe table is in `src/contract/codes.ts`.\n',
    });
    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', 'check-links.ts'), dir],
      { encoding: 'utf8' },
    );
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('README.md:5: src/contract/codes.ts (in the repository, not in the package)'),
    });
    writeFileSync(
      join(dir, 'README.md'),
      '# mfa-sim\n\nLead.\n\nThe table is in `src/contract/codes.ts`, in a clone of the repository.\n',
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', 'check-links.ts'), dir],
      { encoding: 'utf8' },
    );
    expect(stdout).toMatch(/^every relative link and image resolves/);
  });

  it("the repository's own pages pass against the files npm packs", () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
    ) as [{ files: { path: string }[] }];
    const shipped = new Set(
      packed.files.flatMap(({ path }) => path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))),
    );
    const own = repositoryAt(root);
    expect(
      pages(root).flatMap((page) => repositoryOnlyReferences(root, page, own, (path) => shipped.has(path))),
    ).toEqual([]);
  }, 60_000);
});
