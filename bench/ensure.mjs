// Installs what the benchmark needs on a fresh clone: the npm dependencies (npm ci) and wrk (Debian's package).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

if (!existsSync(`${root}/node_modules/express`) || !existsSync(`${root}/node_modules/.bin/tsx`)) run('npm', ['ci']);

if (spawnSync('wrk', ['--version']).error) {
  const root_ = process.getuid?.() === 0;
  const sudo = root_ ? [] : ['sudo', '-n'];
  process.stderr.write('bench: wrk is missing; installing it with apt-get\n');
  const apt = (args) => (sudo.length ? run(sudo[0], [...sudo.slice(1), 'apt-get', ...args]) : run('apt-get', args));
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', 'wrk']);
}
