import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * Loads a dependency the first time it is needed, so that starting a simulator does not pay for modules
 * (qrcode, yaml, json5) that many runs never use. The loaded module is cached by Node.
 *
 * `bundled` names the same dependency pre-bundled into one file beside the built package (`dist/vendor/`, made by
 * tsup.config.ts): one file loads in a third of the time of the package's dozens of modules. From the sources (the
 * tests) there is no such file, and the package itself is loaded.
 */
export function lazy<T>(id: string, bundled?: string): () => T {
  let mod: T | undefined;
  const fromBuild = bundled === undefined ? undefined : besideBuild<T>(bundled);
  return () => (mod ??= fromBuild?.() ?? (requireHere(id) as T));
}

/**
 * A file the build writes beside the bundle (`dist/`: a pre-bundled dependency, the parsed shipped scenarios), loaded
 * the first time it is asked for; undefined when running from the sources, where there is none. Either answer is
 * kept, so an absent file is looked for once.
 */
export function besideBuild<T>(file: string): () => T | undefined {
  let found: { value: T | undefined } | undefined;
  return () => (found ??= { value: requireIfPresent<T>(file) }).value;
}

function requireIfPresent<T>(file: string): T | undefined {
  try {
    return requireHere(file) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    return undefined;
  }
}

const texts = new Map<string, string>();

/**
 * A text file the build writes into dist/ (the browser scripts, src/browser/), read the first time it is asked for
 * and kept. Run from the sources (the tests), it is the one the last build wrote (`npm test` builds first).
 */
export function builtText(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    const fromSources = import.meta.url.endsWith('.ts');
    const url = new URL(fromSources ? `../../dist/${file}` : `./${file}`, import.meta.url);
    try {
      text = readFileSync(url, 'utf8');
    } catch (e) {
      throw new Error(`${file} is not built${fromSources ? ': run `npx tsup`' : ''} (${(e as Error).message})`, {
        cause: e,
      });
    }
    texts.set(file, text);
  }
  return text;
}
