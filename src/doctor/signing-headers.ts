import type { AnsweredRequest } from '../observers/answered.js';

/** The signing headers of a request, whatever the token. */
export function signingHeaders(headers: AnsweredRequest['request']['headers']): { time?: number; nonce?: string } {
  const out: { time?: number; nonce?: string } = {};
  for (const name in headers) {
    if (!name.startsWith('x-')) continue;
    const v = headers[name];
    if (typeof v !== 'string') continue;
    if (name.endsWith('-utctime') && /^\d{1,16}$/.test(v)) out.time = Number(v);
    else if (name.endsWith('-cnonce')) out.nonce = v;
  }
  return out;
}
