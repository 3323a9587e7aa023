import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { defineConfig } from 'tsup';
import { scenarioJsonSchema } from './src/scenario/schema.js';

/**
 * dist/index.js, the package's ES module entry: the exports of dist/index.cjs, each by name. One program for both ways
 * in, so a suite that loads the package both ways holds one copy of it (its classes, its errors).
 */
function esModuleEntry(): string {
  const names = Object.keys(createRequire(resolve('package.json'))('./dist/index.cjs') as object);
  return [
    "// mfa-sim's ES module entry: the exports of dist/index.cjs, so that import and require share one copy.",
    "import { createRequire } from 'node:module';",
    "const library = createRequire(import.meta.url)('./index.cjs');",
    `export const { ${names.join(', ')} } = library;`,
    '',
  ].join('\n');
}

const node = { target: 'node20', platform: 'node', sourcemap: false, splitting: false } as const;

export default defineConfig([
  {
    // The types of the package's three entries.
    entry: { index: 'src/index.ts', client: 'src/client.ts', control: 'src/control.ts' },
    format: ['esm', 'cjs'],
    dts: { only: true },
  },
  {
    entry: { client: 'src/client.ts', control: 'src/control.ts' },
    format: ['esm', 'cjs'],
    ...node,
    shims: true,
    // Here, not on the declarations' build: tsup cleans only declaration files where it builds nothing else.
    clean: true,
  },
  {
    // The package's API, one CommonJS program that dist/index.js re-exports. The JSON Schema of a scenario, for
    // editors, is made from the one schema of the code at each build (shipped as mfa-sim/scenario.schema.json).
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    ...node,
    shims: true,
    onSuccess: () => {
      writeFileSync('scenario.schema.json', `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
      writeFileSync('dist/index.js', esModuleEntry());
      return Promise.resolve();
    },
  },
  {
    // `npx mfa-sim`.
    entry: { cli: 'src/cli/main.ts' },
    format: ['cjs'],
    ...node,
    shims: true,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The pages' browser scripts (src/browser/, type-checked with the DOM's types by src/browser/tsconfig.json), each
    // one file a page carries inline, read from dist/browser/ when a page is first asked for.
    entry: { dashboard: 'src/browser/dashboard.ts', phone: 'src/browser/phone.ts' },
    outDir: 'dist/browser',
    format: ['iife'],
    outExtension: () => ({ js: '.js' }),
    target: 'es2020',
    platform: 'browser',
    sourcemap: false,
    splitting: false,
    minify: true,
    noExternal: [/.*/],
  },
]);
