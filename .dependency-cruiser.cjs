/**
 * The folders of src/ are the architecture: no two folders import each other, however many steps apart
 * (docs/architecture.md draws the layers). `npm run lint` runs this check.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Two folders of src/ import each other: move the shared thing to the lower folder.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment: 'Two modules import each other at run time (a cycle through types only is harmless).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
