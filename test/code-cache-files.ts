import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * A code cache file as src/compile-cache.ts names and writes it, for the suites of the command line's cache and the
 * package's.
 */

/** Its name: node's version, the architecture, a digest of the program and of node's flags (none, in these suites). */
export function cacheFileName(program: string, nodeOptions = ''): string {
  const digest = createHash('sha1')
    .update(readFileSync(program))
    .update(JSON.stringify([[], nodeOptions]))
    .digest('hex');
  return `${process.version}-${process.arch}-${digest}`;
}

/** Its bytes: the SHA-1 digest of the data, then the data. */
export const withDigest = (data: Buffer) => Buffer.concat([createHash('sha1').update(data).digest(), data]);
