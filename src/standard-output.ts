import { terminalText } from './output/terminal.js';

/**
 * The command line's standard output or error, whose reader may go away first: `mfa-sim --codes | head -3`, a
 * `| tee` a CI step killed, a log collector that stopped. Node reports a write into a closed pipe as an 'error'
 * event on the stream (EPIPE, or EBADF and the like for a stream that was never open); unheard, that event ends the
 * process with a stack trace, before the coverage file and the reports are written at exit. Heard here: the stream
 * counts as closed from then on, what is written to it later is dropped, and the simulator keeps serving.
 */
export class StandardOutput {
  private stream?: NodeJS.WritableStream;
  private gone = false;
  private readonly whenGone: ((error: Error) => void)[] = [];

  /** `open` gives the stream on the first write: Node makes `process.stderr` when first asked (about a millisecond). */
  constructor(private readonly open: () => NodeJS.WritableStream) {}

  /** Writes text fit for a terminal (output/terminal.ts): whatever a client got into it, no escape sequence. */
  write(text: string): void {
    // A closed stream would drop the text too, but only after making an error for it.
    if (!this.gone) this.opened().write(terminalText(text));
  }

  /** Runs `fn` once, when the reader goes away (with the error that told so). */
  onClose(fn: (error: Error) => void): void {
    this.whenGone.push(fn);
  }

  private opened(): NodeJS.WritableStream {
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
