import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * Loads a dependency the first time it is needed, so that starting a simulator does not pay for modules
 * (qrcode, yaml, json5) that many runs never use. The loaded module is cached by Node.
 */
export function lazy<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= requireHere(id) as T);
}
