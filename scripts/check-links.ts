/**
 * Checks what the README, the pages under docs/ and the examples' READMEs point to. Run on the repository and on
 * the unpacked package (`.ci/run`): what the package's pages point to must ship with it.
 *
 * - Every relative link and image resolves: the file exists, and a `#fragment` into a Markdown page names one of
 *   its headings (as GitHub and npm make anchors of them).
 * - No page sends a package user to the repository's own files or npm scripts (`src/contract/codes.ts`, `.ci/run`,
 *   `npm run bench`) unless it says where they are: a reference to a file of the repository that the package
 *   lacks, or to one of the repository's npm scripts, must stand in a passage (a paragraph, list or table, with the
 *   code block it introduces), a section or a page that says "in a clone of the repository".
 *
 *   tsx scripts/check-links.ts [root]        exit 0 when every page passes, 1 listing what does not
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The Markdown files a reader starts from: the README, every page under docs/ and each example's README. */
export function pages(root: string): string[] {
  const out = [join(root, 'README.md')];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(join(dir, e.name));
    }
  };
  walk(join(root, 'docs'));
  const examples = join(root, 'examples');
  if (existsSync(examples)) {
    for (const e of readdirSync(examples, { withFileTypes: true })) {
      if (e.isDirectory() && existsSync(join(examples, e.name, 'README.md')))
        out.push(join(examples, e.name, 'README.md'));
    }
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_[\]()]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown page has: one per heading (a repeated heading numbered), and each `<a name>` or `<a id>`. */
export function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** The relative links of a Markdown file that do not resolve, as `file: target (why)`. */
export function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, fragment] = target.split('#');
    const to = path === '' ? file : resolve(dirname(file), decodeURI(path));
    const where = `${relative(root, file)}: ${target}`;
    if (!to.startsWith(resolve(root))) out.push(`${where} (points outside)`);
    else if (!existsSync(to)) out.push(`${where} (no such file)`);
    else if (fragment !== undefined && statSync(to).isFile() && to.endsWith('.md') && !anchors(to).has(fragment))
      out.push(`${where} (no such heading)`);
  }
  return out;
}

/**
 * What of the repository a page may name: its tracked files, their folders, and the npm scripts of its package.json.
 */
export interface Repository {
  paths: Set<string>;
  scripts: Set<string>;
}

/** The repository `dir` is a work tree of, as git tracks it. */
export function repositoryAt(dir: string): Repository {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: dir, encoding: 'utf8' }).split('\0').filter(Boolean);
  const paths = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('/'));
  }
  const scripts = Object.keys(
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: object }).scripts ?? {},
  );
  return { paths, scripts: new Set(scripts) };
}

/** npm scripts that a user's project has too: `npm test` on a page may be theirs. */
const EVERY_PROJECT_HAS = new Set(['test', 'start']);

/** Where a page says plainly that what it names is in the repository, not in the package. */
const IN_A_CLONE = /\bclone of (?:the|this) repository\b|\bin a clone\b/i;

interface Passage {
  line: number;
  text: string;
  heading: boolean;
}

/**
 * A page cut into passages, each with its first line: headings, and paragraphs, lists and tables that end at a
 * blank line; a fenced code block belongs to the passage that introduces it (the blank lines between are kept, so
 * that lines count true).
 */
function passages(text: string): Passage[] {
  const isHeading = (line: string) => /^#{1,6}\s/.test(line);
  const out: { line: number; lines: string[] }[] = [];
  let fenced = false;
  let blanks = 0;
  text.split('\n').forEach((line, i) => {
    if (fenced) {
      out[out.length - 1].lines.push(line);
      fenced = !/^\s*```/.test(line);
      return;
    }
    if (line.trim() === '') {
      blanks++;
      return;
    }
    const fence = /^\s*```/.test(line);
    const last = out[out.length - 1];
    if (last && !isHeading(line) && !isHeading(last.lines[0]) && (blanks === 0 || fence)) {
      last.lines.push(...Array<string>(blanks).fill(''), line);
    } else {
      out.push({ line: i + 1, lines: [line] });
    }
    blanks = 0;
    fenced = fence;
  });
  return out.map(({ line, lines }) => ({ line, text: lines.join('\n'), heading: isHeading(lines[0]) }));
}

/** The package.json that governs a page: the nearest one above it inside root. */
function governingManifest(root: string, file: string): string {
  for (let dir = dirname(file); dir.startsWith(resolve(root)); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'package.json');
  }
  return join(root, 'package.json');
}

/**
 * The references of a page to the repository's files that the package lacks, and to the repository's npm scripts,
 * that nothing says are in a clone of the repository, as `file:line: reference (why)`. What says so: the passage
 * itself, the first passage of its section (or the section's heading), or the page's lead (its first passage after
 * the title), for the whole page. A path counts when git tracks it (or a folder of what it tracks); a glob counts
 * by the folders before its first wildcard. An npm script counts when a page names it with `npm run`, except `test`
 * and `start`, which every project has; the npm scripts of an example's own package.json are its page's to name.
 * `holds` says whether the package holds a path: by default, whether it is under root.
 */
export function repositoryOnlyReferences(
  root: string,
  file: string,
  repository: Repository,
  holds: (path: string) => boolean = (path) => existsSync(join(root, path)),
): string[] {
  const scriptsAreTheRepository = resolve(governingManifest(root, file)) === resolve(root, 'package.json');
  const out: string[] = [];
  let pageSaysWhere = false;
  let sectionSaysWhere = false;
  let sectionStart = true;
  let title = false;
  for (const passage of passages(readFileSync(file, 'utf8'))) {
    const saysWhere = IN_A_CLONE.test(passage.text);
    if (passage.heading) {
      title = /^# /.test(passage.text);
      sectionSaysWhere = saysWhere;
      sectionStart = true;
      continue;
    }
    if (title) pageSaysWhere = saysWhere;
    if (sectionStart) sectionSaysWhere ||= saysWhere;
    title = sectionStart = false;
    if (pageSaysWhere || sectionSaysWhere || saysWhere) continue;
    const where = (offset: number) =>
      `${relative(root, file)}:${passage.line + passage.text.slice(0, offset).split('\n').length - 1}`;
    for (const m of passage.text.matchAll(/(?<![\w./:@~-])((?:\.?[\w*-][\w.*-]*\/)+[\w.*-]*)/g)) {
      const path = m[1].replace(/(^|\/)[^/]*\*.*$/, '').replace(/[./]+$/, '');
      if (!repository.paths.has(path) || holds(path)) continue;
      out.push(`${where(m.index)}: ${m[1].replace(/\.+$/, '')} (in the repository, not in the package)`);
    }
    if (!scriptsAreTheRepository) continue;
    for (const m of passage.text.matchAll(/\bnpm run(?:-script)? ([\w:.-]+)/g)) {
      if (!repository.scripts.has(m[1]) || EVERY_PROJECT_HAS.has(m[1])) continue;
      out.push(`${where(m.index)}: ${m[0]} (an npm script of the repository, not of a package user's project)`);
    }
  }
  return out;
}

if (process.argv[1] && /check-links\.ts$/.test(process.argv[1])) {
  const root = resolve(process.argv[2] ?? '.');
  const repository = repositoryAt(join(import.meta.dirname, '..'));
  const problems = pages(root).flatMap((f) => [
    ...brokenLinks(root, f),
    ...repositoryOnlyReferences(root, f, repository),
  ]);
  if (problems.length) {
    process.stderr.write(
      `pages under ${root} that point to what is not there:\n${problems.map((b) => `  ${b}`).join('\n')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `every relative link and image resolves, and no page names a file of the repository as if it shipped, under ${root} (${pages(root).length} pages)\n`,
  );
}
