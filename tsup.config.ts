import { writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { scenarioJsonSchema } from './src/scenario/schema.js';

// Bundled into dist rather than resolved at run time: TypeBox is some 250 small modules, and resolving and loading
// them cost more start-up time than all the rest of the simulator; `ms` is small, and the first CommonJS module an ES
// module imports costs some milliseconds of loader set-up (bench/, docs/performance.md).
const noExternal = ['@sinclair/typebox', 'ms'];

export default defineConfig([
  {
    entry: { index: 'src/index.ts', client: 'src/client.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    target: 'node20',
    platform: 'node',
    clean: true,
    sourcemap: false,
    splitting: false,
    shims: true,
    noExternal,
    // The JSON Schema of a scenario, for editors, is made from the one schema of the code at each build (the package
    // ships it as mfa-sim/scenario.schema.json; the shipped scenarios name it in their first line).
    onSuccess: async () => writeFileSync('scenario.schema.json', `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`),
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    splitting: false,
    // The command line bundles every dependency it loads at start: one file to read instead of modules to resolve.
    // Modules loaded only when first needed (express, qrcode, yaml, json5, pino, faker, ipaddr.js) stay outside. CommonJS dependencies inside an ES module need a real `require` for Node's built-ins.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __mfaSimCreateRequire } from 'node:module';\nconst require = __mfaSimCreateRequire(import.meta.url);" },
    noExternal: [/.*/],
  },
]);
