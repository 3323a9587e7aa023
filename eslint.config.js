// The linter: ESLint with typescript-eslint's type-checked rules (docs/architecture.md says why); Prettier formats.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Scripts that run in a browser (the dashboard's, the phone page's): the DOM's globals (not Node's) and types. */
const BROWSER = ['src/**/browser/**/*.{ts,js}', 'src/**/*.browser.{ts,js}'];

export default defineConfig(
  {
    ignores: [
      'dist/',
      'coverage/',
      'docs/api/',
      '.pack/',
      '.bench/',
      '.stryker-tmp/',
      'reports/',
      'test-results/',
      'examples/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Prettier wraps code at 120 columns; comments, and the code it cannot break (long strings), are held to it here.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  // A file does one thing: none in src/ passes 350 lines, and the Simulator facade, which only wires the parts and
  // names the in-process methods, stays under 200.
  { files: ['src/**/*.ts'], rules: { 'max-lines': ['error', { max: 400 }] } },
  { files: ['src/simulator/simulator.ts'], rules: { 'max-lines': ['error', { max: 199 }] } },
  { ignores: BROWSER, languageOptions: { globals: globals.node } },
  { files: BROWSER, languageOptions: { globals: globals.browser } },
  {
    // The pages' scripts are type-checked with the DOM's types alone (src/browser/tsconfig.json); the browser tests,
    // whose callbacks run in the page, with the DOM's and Node's (tsconfig.browser.json).
    files: BROWSER,
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './src/browser/tsconfig.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['test/browser/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './tsconfig.browser.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Tests read answers as parsed JSON (any) and assert on their fields: the assertions are the type checks there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // A test hands async callbacks where an API takes one, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  // Plain JavaScript (configs, the benchmark's baselines) is in no TypeScript project: the type-checked rules skip it.
  { files: ['**/*.{js,mjs,cjs}'], extends: [tseslint.configs.disableTypeChecked] },
);
