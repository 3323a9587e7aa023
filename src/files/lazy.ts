import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { readFileWithin } from './read-file.js';

const requireHere = createRequire(import.meta.url);

/** A dependency loaded the first time it is needed. */
export function lazy<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= requireHere(id) as T);
}

const texts = new Map<string, string>();
/** A browser script is a few kilobytes. */
const BUILT_TEXT_LIMIT = 16 * 1024 * 1024;

/** A text file the build writes into dist/. */
export function builtText(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    const fromSources = import.meta.url.endsWith('.ts');
    const url = new URL(fromSources ? `../../dist/${file}` : `./${file}`, import.meta.url);
    try {
      text = readFileWithin(fileURLToPath(url), { limit: BUILT_TEXT_LIMIT }).toString('utf8');
    } catch (e) {
      throw new Error(`${file} is not built${fromSources ? ': run `npx tsup`' : ''} (${(e as Error).message})`, {
        cause: e,
      });
    }
    texts.set(file, text);
  }
  return text;
}
