/**
 * The ways a header value can be read. Node hands a header's bytes over as Latin-1, one character a byte, and most
 * clients write them so (fetch, Python's requests, Java); others write UTF-8 (curl, whatever the terminal holds, and
 * Node's own client when the request has a body). A rule written `x-test-case: größe` must meet both: a value whose
 * bytes are valid UTF-8 beyond ASCII is also read as UTF-8.
 */

const BEYOND_ASCII = /[\x80-\xff]/;
// A byte-order mark is part of the value as sent, not a sign to drop (the decoder would drop a leading one).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The value as Node gave it, and its UTF-8 reading when its bytes are valid UTF-8 beyond ASCII. */
export function headerReadings(value: string): string[] {
  if (!BEYOND_ASCII.test(value)) return [value];
  try {
    return [value, UTF8.decode(Buffer.from(value, 'latin1'))];
  } catch {
    // Not UTF-8: Latin-1 is the only reading.
    return [value];
  }
}
