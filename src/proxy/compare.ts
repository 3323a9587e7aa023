import { codeInfo } from '../codes.js';
import type { DifferenceKind } from './deviation.js';
import { envelopeOf, typeName, type SeenAnswer } from './judge.js';

/**
 * Comparing the service's answer with mfa-sim's to the same request (the shadow comparison and the probe): the HTTP
 * status and code as a pair, the envelope's shape (its keys and the kind of each value), and the message.
 *
 * Messages are compared for what the interface document fixes, not word for word: a message that is JSON text (a new
 * challenge's, the time's, a cancel's) has the same keys, each value of the same kind; an error's sentence begins
 * with the code's meaning as the code table words it, as every message of mfa-sim's does (the detail and the client
 * doctor's hint after it are mfa-sim's own). Equal text always agrees.
 */

/** One part in which the two answers differ. */
export interface Difference {
  kind: DifferenceKind;
  what: string;
}

/** The parts in which the service's answer differs from mfa-sim's; none when they agree. */
export function compareAnswers(theirs: SeenAnswer, mine: SeenAnswer): Difference[] {
  const a = envelopeOf(theirs.body);
  const b = envelopeOf(mine.body);
  const codeA = a?.code;
  const codeB = b?.code;
  if (theirs.status !== mine.status || codeA !== codeB) {
    return [
      {
        kind: 'service-differs-status',
        what: `HTTP ${theirs.status} ${shownCode(codeA)} where mfa-sim answers HTTP ${mine.status} ${shownCode(codeB)}`,
      },
    ];
  }
  if (!a || !b)
    return a === b
      ? []
      : [
          {
            kind: 'service-differs-envelope',
            what: a ? 'mfa-sim answers no JSON envelope' : 'the body is not a JSON envelope',
          },
        ];
  const out: Difference[] = [];
  const shape = shapeDifference(a, b);
  if (shape) out.push({ kind: 'service-differs-envelope', what: shape });
  if (!sameMessage(a.message, b.message, codeA))
    out.push({ kind: 'service-differs-message', what: `the message differs from mfa-sim's` });
  return out;
}

function shownCode(code: unknown): string {
  return code === undefined ? '(no code)' : JSON.stringify(code);
}

/** How two envelopes' shapes differ (keys present, the kind of each value), or undefined when they are the same. */
function shapeDifference(a: Record<string, unknown>, b: Record<string, unknown>): string | undefined {
  const only = (x: Record<string, unknown>, y: Record<string, unknown>) =>
    Object.keys(x).filter((k) => !Object.hasOwn(y, k));
  const extra = only(a, b);
  const missing = only(b, a);
  const kinds = Object.keys(b).filter((k) => Object.hasOwn(a, k) && typeName(a[k]) !== typeName(b[k]));
  const parts = [
    missing.length ? `missing ${missing.join(', ')}` : '',
    extra.length ? `extra ${extra.map((k) => JSON.stringify(k)).join(', ')}` : '',
    ...kinds.map((k) => `${k} is ${typeName(a[k])} where mfa-sim's is ${typeName(b[k])}`),
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}

/** Whether two messages of one code say the same, as far as the document fixes it (see above). */
function sameMessage(theirs: unknown, mine: unknown, code: unknown): boolean {
  if (theirs === mine) return true;
  if (typeof theirs !== 'string' || typeof mine !== 'string') return false;
  const b = envelopeOf(mine);
  if (b) {
    const a = envelopeOf(theirs);
    return a !== undefined && shapeDifference(a, b) === undefined;
  }
  const title = typeof code === 'number' ? codeInfo(code)?.title : undefined;
  return title !== undefined && theirs.startsWith(title) && mine.startsWith(title);
}
