// Type-checks the two consumers (CommonJS, NodeNext ESM) with TypeScript 5.9 and with TypeScript 7, strict and with
// skipLibCheck off: the package's declarations must compile with nothing but @types/node installed beside it.
import { execFileSync } from 'node:child_process';

const compilers = { 'TypeScript 5.9': 'node_modules/typescript/bin/tsc', 'TypeScript 7': 'node_modules/typescript7/bin/tsc' };
let failed = 0;
for (const [name, tsc] of Object.entries(compilers)) {
  const version = execFileSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' }).trim();
  for (const project of ['tsconfig.commonjs.json', 'tsconfig.nodenext.json']) {
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', stdio: 'pipe' });
      console.log(`ok   ${name} (${version}) ${project}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name} (${version}) ${project}\n${e.stdout}${e.stderr}`);
    }
  }
}
process.exit(failed ? 1 : 0);
