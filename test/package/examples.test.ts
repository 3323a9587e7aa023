import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The examples the package ships are projects of their own: a user copies one out of node_modules/mfa-sim/examples/
 * and runs the commands of its README. `.ci/run` runs each so, on a copy outside the repository, with the packed
 * tarball published to a registry of its own; these tests keep the pages, the manifests and that list in step.
 */

const root = join(__dirname, '..', '..');
const examples = readdirSync(join(root, 'examples'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** The commands of an example's README, as `.ci/run` reads them: the lines of its `example:run` code block. */
function commandsOf(example: string): string[] {
  const readme = readFileSync(join(root, 'examples', example, 'README.md'), 'utf8');
  const block = /^<!-- example:run -->\n```sh\n([\s\S]*?)```\n<!-- \/example:run -->$/m.exec(readme);
  return block ? block[1].trim().split('\n') : [];
}

/** A command as it runs, its comment dropped. */
const bare = (command: string) => command.replace(/\s+#.*$/, '');

describe('the shipped examples', () => {
  for (const example of examples) {
    it(`${example}: its README gives the commands that install it and run its tests`, () => {
      const commands = commandsOf(example).map(bare);
      expect(commands[0]).toBe('npm install');
      expect(commands.length).toBeGreaterThanOrEqual(2);
    });

    it(`${example}: depends on mfa-sim as a user's project does, ^${version}, and on nothing by path`, () => {
      const manifest = JSON.parse(readFileSync(join(root, 'examples', example, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
      expect(dependencies['mfa-sim']).toBe(`^${version}`);
      expect(Object.values(dependencies).filter((spec) => /^(file|link|portal):|^\.{0,2}\//.test(spec))).toEqual([]);
    });
  }

  it('the README lists each with the commands of its own README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = /<!-- examples -->\n([\s\S]*?)<!-- \/examples -->/.exec(readme);
    expect(table).not.toBeNull();
    const rows = [...table![1].matchAll(/^\| \[([a-z-]+)\]\(examples\/\1\/README\.md\) \|[^|]*\| `([^`]*)` \|$/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(examples);
    for (const [, example, commands] of rows)
      expect(commands, example).toBe(commandsOf(example).map(bare).join(' && '));
  });

  it('.ci/run runs every one of them', () => {
    const run = readFileSync(join(root, '.ci', 'run'), 'utf8');
    const listed = [...run.matchAll(/^run_pair ([a-z -]+)$/gm)].flatMap((m) => m[1].split(' '));
    expect(listed.sort()).toEqual(examples);
  });
});
