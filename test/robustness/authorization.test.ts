import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAuthorization } from '../../src/auth/signature.js';
import { runs } from './support.js';

/**
 * The grammar of docs/behaviour.md#signing-and-header-formats as the regular expression it was first written with: the
 * oracle.
 */
function byRegex(value: string, token: string): Record<string, string> | undefined {
  const scheme = `${token}-hmac:`;
  const trimmed = value.trimStart();
  if (trimmed.slice(0, scheme.length).toLowerCase() !== scheme) return undefined;
  const parts: Record<string, string> = {};
  for (const piece of trimmed.slice(scheme.length).split(',')) {
    const m = /^\s*([A-Za-z]+)\s*=\s*(.*?)\s*$/.exec(piece);
    if (!m) return undefined;
    const key = m[1].toLowerCase();
    if (!['apiuser', 'signedheaders', 'algorithm', 'signature'].includes(key) || parts[key] !== undefined)
      return undefined;
    parts[key] = m[2];
  }
  return parts;
}

describe('Authorization parsing in linear time', () => {
  it('reads every header value exactly as the grammar does', () => {
    const piece = fc.tuple(
      fc.constantFrom('', ' ', '\t', '  '),
      fc.oneof(
        fc.constantFrom('apiuser', 'SIGNATURE', 'algorithm', 'signedheaders', 'x', 'api user', ''),
        fc.string({ maxLength: 6 }),
      ),
      fc.constantFrom('=', ' = ', '==', '', ' ='),
      fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('a  b', ' a ', '', 'x=y')),
      fc.constantFrom('', ' ', '\t'),
    );
    const value = fc
      .tuple(
        fc.constantFrom('svc-hmac:', 'SVC-hmac: ', ' svc-hmac:', 'svc-hmac', 'other:'),
        fc.array(
          piece.map((p) => p.join('')),
          { maxLength: 5 },
        ),
      )
      .map(([s, ps]) => s + ps.join(','));
    // Header values hold no line breaks (the HTTP parser refuses them), so the regex's `.` covers every character.
    fc.assert(
      fc.property(
        value.filter((v) => !/[\n\r\u2028\u2029]/.test(v)),
        (v) => {
          expect(parseAuthorization(v, 'svc')).toEqual(byRegex(v, 'svc'));
        },
      ),
      { numRuns: runs(5000) },
    );
  });
});
