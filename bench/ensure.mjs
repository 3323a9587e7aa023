// Installs what the benchmark needs on a fresh clone: the npm dependencies (npm ci) and wrk (Debian's package).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args) => execFileSync(args[0], args.slice(1), { cwd: root, stdio: 'inherit' });

if (!existsSync(`${root}/node_modules/express`) || !existsSync(`${root}/node_modules/.bin/tsx`)) run(['npm', 'ci']);
if (spawnSync('wrk', ['--version']).error) {
  process.stderr.write('bench: wrk is missing; installing it with apt-get\n');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  run([...sudo, 'apt-get', 'update', '-qq']);
  run([...sudo, 'apt-get', 'install', '-y', '-qq', 'wrk']);
}
