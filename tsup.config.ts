import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import { scenarioJsonSchema } from './src/scenario/schema.js';
import { findShippedScenario, shippedScenarioNames } from './src/scenario/catalog.js';
import { loadScenarioText } from './src/scenario/load.js';

// Bundled into dist rather than resolved at run time: TypeBox is some 250 small modules, and resolving and loading
// them cost more start-up time than all the rest of the simulator; `ms` is small, and the first CommonJS module an ES
// module imports costs some milliseconds of loader set-up (bench/, docs/performance.md).
const noExternal = ['@sinclair/typebox', 'ms'];
const yamlPackage = JSON.parse(readFileSync('node_modules/yaml/package.json', 'utf8')) as {
  version: string;
  license: string;
  author: string;
};

/**
 * The shipped scenarios, parsed and checked once here by the same code that loads any scenario file, so that the built
 * package loads them without YAML (src/scenario/catalog.ts reads dist/scenarios.json). A broken one fails the build.
 */
function shippedScenarioValues(): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of shippedScenarioNames()) {
    const file = findShippedScenario(name)!;
    // The text, parsed and checked as any scenario file is; `input` is the value it was compiled from.
    values[name] = loadScenarioText(readFileSync(file, 'utf8'), file).input;
  }
  return values;
}

/**
 * dist/index.js, the package's ES module entry: the exports of `require('mfa-sim')` (dist/index.cjs, which runs the
 * package's program, dist/library.cjs, with V8's code cache), each by name. One program for both ways in: a suite that
 * loads the package both ways holds one copy of it, and `import` starts as quickly as `require`. It is required, not
 * imported: Node imports a CommonJS file by first reading it for its exports' names with a lexer of its own (a module
 * loaded for that alone), about a millisecond of `import('mfa-sim')`; the names are written out here instead.
 */
function esModuleEntry(): string {
  const names = Object.keys(createRequire(resolve('package.json'))('./dist/library.cjs') as object);
  return [
    "// mfa-sim's ES module entry: the exports of dist/index.cjs (the package's program, run with V8's code cache).",
    "import { createRequire } from 'node:module';",
    "const library = createRequire(import.meta.url)('./index.cjs');",
    `export const { ${names.join(', ')} } = library;`,
    '',
  ].join('\n');
}

/**
 * What a program run with V8's code cache (dist/library.cjs, dist/mfa-sim.cjs) is built with.
 *
 * - Every import() written as require(): code V8 reads from its cache has lost what import() needs in a script run with
 *   node:vm (Node 20 answers ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); what the programs import that way are Node's own
 *   modules and CommonJS ones, which require() loads alike.
 * - `import.meta.url` is the program's own file, always: tsup's shim answers a page's URL wherever a `document` global
 *   exists (Vitest's jsdom and happy-dom environments put one on Node's own), and the package would look for its files
 *   (its shipped scenarios, YAML) at that URL and throw as it loads.
 */
const asProgram: Pick<Options, 'banner' | 'esbuildOptions' | 'shims'> = {
  shims: false,
  // Strict mode's directive first, as esbuild writes it at the top of the file when there is no banner.
  banner: { js: '"use strict";\nvar __programUrl = require("node:url").pathToFileURL(__filename).href;' },
  esbuildOptions(options) {
    options.supported = { ...options.supported, 'dynamic-import': false };
    options.define = { ...options.define, 'import.meta.url': '__programUrl' };
  },
};

export default defineConfig([
  {
    // The types of the package's three entries (its API's from index.ts, though index.js and index.cjs are the loaders
    // below), sharing what they have in common.
    entry: { index: 'src/index.ts', client: 'src/client.ts', control: 'src/control.ts' },
    format: ['esm', 'cjs'],
    dts: { only: true },
  },
  {
    entry: { client: 'src/client.ts', control: 'src/control.ts' },
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    shims: true,
    // Here, not on the declarations' build: tsup cleans only declaration files where it builds nothing else.
    clean: true,
  },
  {
    // The package's API as one CommonJS program, run by dist/index.cjs with V8's code cache (src/library-entry.cts).
    entry: { library: 'src/index.ts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    noExternal,
    ...asProgram,
    // The JSON Schema of a scenario, for editors, is made from the one schema of the code at each build (the package
    // ships it as mfa-sim/scenario.schema.json; the shipped scenarios name it in their first line); the shipped
    // scenarios, parsed; and the ES module entry, which names the program's exports.
    onSuccess: () => {
      writeFileSync('scenario.schema.json', `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
      writeFileSync('dist/scenarios.json', JSON.stringify(shippedScenarioValues()));
      writeFileSync('dist/index.js', esModuleEntry());
      return Promise.resolve();
    },
  },
  {
    // require('mfa-sim') (and, through it, import): the loader that runs dist/library.cjs.
    entry: { index: 'src/library-entry.cts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
  },
  {
    entry: { 'mfa-sim': 'src/cli.ts' },
    // CommonJS, compiled by the command line's entry (bin.ts) with V8's code cache; a CommonJS file is read and run
    // synchronously, where an ES module goes through the asynchronous module loader (resolution, file handles, promise
    // turns): about 7 ms less from spawn to the first answer, paired (docs/performance.md). Nothing imports this file;
    // the package's API is dist/index.
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    // The command line bundles every dependency it loads at start: one file to read instead of modules to resolve.
    // Modules loaded only when first needed (express, qrcode, yaml, json5, pino, faker, ipaddr.js) stay outside.
    noExternal: [/.*/],
    ...asProgram,
  },
  {
    // `npx mfa-sim`: the entry that runs dist/mfa-sim.cjs with V8's code cache (src/bin.ts).
    entry: { cli: 'src/bin.ts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The pages' browser scripts (src/browser/, type-checked with the DOM's types by src/browser/tsconfig.json), each
    // one file a page carries inline; read from dist/browser/ when a page is first asked for (world/lazy.ts), so
    // importing the package never parses them.
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
  {
    // YAML, loaded with the first scenario file (world/lazy.ts), pre-bundled into one file: the package's dozens of
    // modules took 22 ms to load, the one file 7 ms. Unchanged from the npm package, whose licence it keeps.
    entry: { 'vendor/yaml': 'node_modules/yaml/dist/index.js' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    noExternal: [/.*/],
    banner: {
      js: `/* yaml ${yamlPackage.version}, ${yamlPackage.license} licence, (c) ${yamlPackage.author}: https://github.com/eemeli/yaml */`,
    },
  },
]);
