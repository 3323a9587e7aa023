import { closeSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OptionsError } from '../errors.js';
import { makeFolders } from '../folders.js';
import { openToAdd, writeProblem, writeWhole, writeWholeAsync } from '../write-file.js';

/**
 * The files of a recording (recorder.ts), written through the one writer (write-file.ts): the scenario whole, beside
 * it then renamed over its own file only; the exchanges added to a file made at start and kept open. Nothing in the
 * folder is followed: a link there is never written through, and a name that holds one is left as it is.
 */

/** The scenario is written this long after the last change (and at close), not on every request. */
const WRITE_DELAY_MS = 200;

export class RecordingFiles {
  readonly scenarioFile: string;
  readonly exchangesFile: string;
  private exchangesFd: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Counts the scenario's writes: one written in the background is put in place only if no later one was made. */
  private writes = 0;
  private writing = false;
  private closed = false;
  /** Why the files are no longer written (a write failed): told once, through `failed`. */
  private broken: string | undefined;

  /** The names of a recording's files in `dir`. */
  static in(dir: string): { scenarioFile: string; exchangesFile: string } {
    return { scenarioFile: join(dir, 'scenario.yaml'), exchangesFile: join(dir, 'exchanges.jsonl') };
  }

  /**
   * Makes the folder and both files; refuses (an OptionsError of `record`) a folder that holds either already, even as
   * a link that leads nowhere, or that cannot be written: at start, not at the first request.
   */
  constructor(
    dir: string,
    /** The scenario's text as it stands. */
    private readonly scenarioText: () => string,
    /** Told once when a file can no longer be written. */
    private readonly failed: (error: Error) => void,
  ) {
    ({ scenarioFile: this.scenarioFile, exchangesFile: this.exchangesFile } = RecordingFiles.in(dir));
    const problem = (message: string) => new OptionsError([{ path: ['record'], message }]);
    for (const file of [this.scenarioFile, this.exchangesFile]) {
      if (lstatSync(file, { throwIfNoEntry: false }))
        throw problem(`${file} exists: a recording is never written over; remove it or choose another folder`);
    }
    try {
      makeFolders(dir);
      this.exchangesFd = openToAdd(this.exchangesFile, true);
      writeWhole(this.scenarioFile, scenarioText());
    } catch (e) {
      if (this.exchangesFd !== undefined) closeSync(this.exchangesFd);
      throw problem(`${dir} cannot be written (${(e as NodeJS.ErrnoException).code ?? writeProblem(e)})`);
    }
  }

  /** Adds a line to the exchanges: through the file opened at start (whatever its name now holds). */
  addExchange(line: string): void {
    this.attempt(() => {
      // After close (a request that was still on its way), opened again, without following a link.
      const fd = this.exchangesFd ?? openToAdd(this.exchangesFile, false);
      try {
        writeFileSync(fd, line);
      } finally {
        if (fd !== this.exchangesFd) closeSync(fd);
      }
    });
  }

  /** The scenario changed: written a short while later, or at once after close (no timer runs then). */
  changed(): void {
    if (this.closed) this.flush();
    else this.later();
  }

  /** Writes the scenario as it stands now, at once. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writes++;
    this.attempt(() => writeWhole(this.scenarioFile, this.scenarioText()));
  }

  /** Writes the scenario a last time and lets go of the exchanges' file. */
  close(): void {
    this.flush();
    this.closed = true;
    if (this.exchangesFd !== undefined) closeSync(this.exchangesFd);
    this.exchangesFd = undefined;
  }

  /**
   * Writes the scenario a short while after a change, in the background, one write at a time: the event loop is not
   * held while the disk writes a file of up to a megabyte.
   */
  private later(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.writing) return this.later();
      const write = ++this.writes;
      this.writing = true;
      writeWholeAsync(this.scenarioFile, this.scenarioText(), () => write === this.writes && !this.broken)
        .catch((e: unknown) => this.fail(e))
        .finally(() => (this.writing = false));
    }, WRITE_DELAY_MS);
    this.timer.unref?.();
  }

  /** Runs a write, unless one failed already; a failure stops the writing and is told, never thrown. */
  private attempt(write: () => void): void {
    if (this.broken) return;
    try {
      write();
    } catch (e) {
      this.fail(e);
    }
  }

  private fail(e: unknown): void {
    if (this.broken) return;
    this.broken = writeProblem(e);
    this.failed(new Error(`the recording in ${this.scenarioFile} stopped: ${this.broken}`));
  }
}
