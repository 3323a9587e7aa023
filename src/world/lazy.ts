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
  return () => (mod ??= load(id, bundled) as T);
}

function load(id: string, bundled: string | undefined): unknown {
  if (bundled !== undefined) {
    try {
      return requireHere(bundled);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  return requireHere(id);
}
