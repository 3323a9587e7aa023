import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `mkdirSync(path, { recursive: true })` without its endless loop. */
export function makeFolders(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let p = resolve(path); !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.push(p);
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p, { mode });
    } catch (e) {
      // Made meanwhile by another process: as good.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  // A file where the folder goes: mkdir's own EEXIST.
  if (!statSync(path).isDirectory()) mkdirSync(path, { mode });
}
