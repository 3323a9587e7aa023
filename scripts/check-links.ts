/**
 * Checks that every relative link and image in the README and under docs/ resolves: the file exists, and a
 * `#fragment` into a Markdown page names one of its headings (as GitHub and npm make anchors of them). Run on the
 * repository and on the unpacked package (`.ci/run`): what the package's README points to must ship with it.
 *
 *   tsx scripts/check-links.ts [root]        exit 0 when every link resolves, 1 listing those that do not
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The Markdown files a reader starts from: the README and every page under docs/. */
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
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, fragment] = target.split('#');
    const to = path === '' ? file : resolve(dirname(file), decodeURI(path));
    const where = `${relative(root, file)}: ${target}`;
    if (!to.startsWith(resolve(root))) out.push(`${where} (points outside)`);
    else if (!existsSync(to)) out.push(`${where} (no such file)`);
    else if (fragment !== undefined && statSync(to).isFile() && to.endsWith('.md') && !anchors(to).has(fragment)) out.push(`${where} (no such heading)`);
  }
  return out;
}

if (process.argv[1] && /check-links\.ts$/.test(process.argv[1])) {
  const root = resolve(process.argv[2] ?? '.');
  const broken = pages(root).flatMap((f) => brokenLinks(root, f));
  if (broken.length) {
    process.stderr.write(`links that do not resolve under ${root}:\n${broken.map((b) => `  ${b}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`every relative link and image resolves under ${root} (${pages(root).length} pages)\n`);
}
