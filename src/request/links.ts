/**
 * How answers link back to the simulator: `moreInfo`, `challengeQRcodeUrl` and the pages' own links. The base is the
 * public URL (the address listened on, or the `publicUrl` option); without one (an app mounted with createApp), the
 * Host the request came by, which is the caller's and so shown with its secrets hidden.
 */
export class Links {
  /**
   * The last Host header and its base URL: clients send the same one request after request. A cache, so its mutants
   * are equivalent: a base made afresh is the same (the secrets it hides change only with `forget`), and an entry
   * without a header is never read.
   */
  // Stryker disable next-line all: the empty entry is never read
  private last: { header?: string; url: string } = { url: '' };

  constructor(
    private readonly redact: (text: string) => string,
    /** Set by the server once listening, or by the `publicUrl` option. */
    public publicUrl?: string,
  ) {}

  /** The simulator's own base URL: the public URL, else the one this request reached it by. */
  base(hostHeader?: string | string[]): string {
    if (this.publicUrl) return this.publicUrl;
    // Stryker disable next-line ConditionalExpression,StringLiteral: not reading the cache makes the same base afresh
    if (hostHeader === this.last.header && typeof hostHeader === 'string') return this.last.url;
    const host =
      typeof hostHeader === 'string' && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(hostHeader)
        ? hostHeader
        : 'localhost';
    const url = this.redact(`http://${host}`);
    // Stryker disable next-line all: an entry not kept, or kept without its header, is made afresh the same
    if (typeof hostHeader === 'string') this.last = { header: hostHeader, url };
    return url;
  }

  /** The page a challenge's QR code opens: the user's phone. */
  challenge(id: string, hostHeader?: string | string[]): string {
    return `${this.base(hostHeader)}/phone/${encodeURIComponent(id)}`;
  }

  /** Forgets the remembered base (the secrets to hide have changed). */
  forget(): void {
    // Stryker disable next-line ObjectLiteral,StringLiteral: an entry without a header is never read
    this.last = { url: '' };
  }
}
