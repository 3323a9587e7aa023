import { clipText } from '../contract/response.js';
import { unguessable } from '../world/random.js';
import { Redactor } from '../output/redactor.js';

/** The secrets a simulator holds, and how everything it shows outside. */
export class Secrets {
  readonly redactor = new Redactor();
  private token?: string;

  /** `held`: what the simulator holds now. */
  constructor(private readonly held: () => string[]) {}

  /** Text with every secret held hidden, plain or escaped. */
  hide(text: string): string {
    return this.redactor.hide(text);
  }

  /** What a caller sent, fit to be shown back: its secrets hidden first, then cut to `max` characters. */
  echo(value: string, max: number): string {
    return clipText(this.redactor.hide(value), max);
  }

  /** The control token, when the control API needs one (listening beyond loopback). */
  get controlToken(): string | undefined {
    return this.token;
  }

  set controlToken(token: string | undefined) {
    this.token = token;
    this.update();
  }

  /** Listening beyond loopback: the control API needs a token from now on, an unguessable one unless one was given. */
  needControlToken(): void {
    this.controlToken ??= unguessable(32);
  }

  /** Call when a scenario was loaded, bound or let go. */
  update(): void {
    this.redactor.set(this.token === undefined ? this.held() : [...this.held(), this.token]);
  }

  get size(): number {
    return this.redactor.size;
  }
}
