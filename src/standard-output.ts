import type { Writable } from 'node:stream';
import { terminalText } from './output/terminal.js';

/**
 * How much request-log text may wait for a slow reader of standard output before lines are dropped: seconds of the
 * log under load, far more than a reader that keeps up ever leaves waiting (a pipe itself holds 64 KiB).
 */
export const LOG_BACKLOG_CHARS = 4 * 2 ** 20;

/**
 * How long the command line, stopping, waits for the readers of its standard output and error to take what it wrote
 * last (the log's last lines, the verdict): into a pipe, Node writes later what the reader has not taken yet, and a
 * process that exits first loses it. A reader that stopped reading holds the exit no longer than this.
 */
export const EXIT_OUTPUT_WAIT_MS = 2000;

/**
 * The command line's standard output or error, whose reader may go away first: `mfa-sim --codes | head -3`, a
 * `| tee` a CI step killed, a log collector that stopped. Node reports a write into a closed pipe as an 'error'
 * event on the stream (EPIPE, or EBADF and the like for a stream that was never open); unheard, that event ends the
 * process with a stack trace, before the coverage file and the reports are written at exit. Heard here: the stream
 * counts as closed from then on, what is written to it later is dropped, and the simulator keeps serving.
 *
 * A reader may also stall without going away (a terminal on pause, a log collector behind, a pipe no one reads). Into
 * a pipe Node writes without waiting and keeps in memory what the reader has not taken: the request log (`writeLog`)
 * is then dropped past LOG_BACKLOG_CHARS, counted, and said once the reader has caught up, so that the simulator
 * never holds its whole log. A file or a terminal is written at once and never falls behind.
 */
export class StandardOutput {
  private stream?: Writable;
  private gone = false;
  private readonly whenGone: ((error: Error) => void)[] = [];
  /** Request-log lines dropped since the reader fell behind (0: it keeps up). */
  private dropped = 0;
  private readonly whenCaughtUp: ((droppedLines: number) => void)[] = [];

  /** `open` gives the stream on the first write: Node makes `process.stderr` when first asked (about a millisecond). */
  constructor(private readonly open: () => Writable) {}

  /** Writes text fit for a terminal (output/terminal.ts): whatever a client got into it, no escape sequence. */
  write(text: string): void {
    // A closed stream would drop the text too, but only after making an error for it.
    if (!this.gone) this.opened().write(terminalText(text));
  }

  /**
   * Writes request-log text of `lines` lines, unless more than LOG_BACKLOG_CHARS already wait for the reader: then
   * it is dropped and its lines counted, until the reader has taken everything.
   */
  writeLog(text: string, lines: number): void {
    if (this.gone) return;
    const stream = this.opened();
    if (this.dropped === 0 && stream.writableLength <= LOG_BACKLOG_CHARS) {
      stream.write(terminalText(text));
      return;
    }
    // Past the backlog, the last write found the stream full: it tells when it has written everything ('drain').
    if (this.dropped === 0) stream.once('drain', () => this.caughtUp());
    this.dropped += lines;
  }

  /**
   * Resolves once everything written has left for the reader (at once for a file, a terminal, a stream never opened or
   * gone), or after `ms`, whichever comes first.
   */
  written(ms: number): Promise<void> {
    const stream = this.stream;
    if (!stream || this.gone || stream.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      // An empty write's callback runs once every write before it has left, in order (or with the stream's error).
      stream.write('', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Runs `fn` with the number of lines dropped, each time the reader has caught up after falling behind. */
  onCaughtUp(fn: (droppedLines: number) => void): void {
    this.whenCaughtUp.push(fn);
  }

  /** Lines dropped and not yet told: the reader is still behind (asked as the process exits). */
  droppedLines(): number {
    return this.dropped;
  }

  /** Runs `fn` once, when the reader goes away (with the error that told so). */
  onClose(fn: (error: Error) => void): void {
    this.whenGone.push(fn);
  }

  private caughtUp(): void {
    const n = this.dropped;
    this.dropped = 0;
    for (const fn of this.whenCaughtUp) fn(n);
  }

  private opened(): Writable {
    if (this.stream) return this.stream;
    const stream = this.open();
    stream.on('error', (error: Error) => {
      if (this.gone) return;
      this.gone = true;
      for (const fn of this.whenGone) fn(error);
    });
    return (this.stream = stream);
  }
}
