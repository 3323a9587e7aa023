import fc from 'fast-check';

/**
 * Generators of hostile request parts for the fuzz suite. Values are generated as JSON *text* (not objects)
 * so that a body can hold what JSON.stringify cannot make: `__proto__` keys, duplicate keys, nesting
 * thousands deep, relaxed JSON, invalid UTF-8.
 */

const API_PATHS = ['/v1/svc/challenge', '/v1/svc/time', '/v1/svc/status', '/v1/svc/verify', '/v1/svc/blocked'] as const;

/** Header names that change how a request is framed: fuzzed on raw sockets only, where a hang is bounded. */
const FRAMING = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
]);

/** The characters a Node client lets a header value hold: tab, printable ASCII, the upper half of Latin-1. */
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(9) },
  )
  .map((c) => String.fromCharCode(c));

const headerText = fc.string({ unit: headerChar, maxLength: 60 });

/**
 * A long run of one character: lengths that stress parsers and regular expressions without passing the header limit.
 */
const absurd = fc
  .tuple(fc.integer({ min: 200, max: 6000 }), fc.constantFrom('a', '0', ' ', '=', ',', '9', 'f', '-'))
  .map(([n, c]) => c.repeat(n));

const nearValid = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '12345678',
  '123456789',
  '1234567890',
  '9999999999999999',
  '99999999999999999',
  'svc-hmac:',
  'svc-hmac: apiuser=123456789',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'default',
  'clock-ahead',
  '../../../etc/passwd',
  '00000000-0000-0000-0000-000000000000',
);

const headerValue = fc.oneof(
  { weight: 5, arbitrary: headerText },
  { weight: 2, arbitrary: nearValid },
  { weight: 1, arbitrary: absurd },
);

const knownName = fc.constantFrom(
  'authorization',
  'x-svc-utctime',
  'x-svc-cnonce',
  'x-svc-apiuser',
  'content-type',
  'accept',
  'x-sim-scenario',
  'host',
  'cookie',
  'x-forwarded-for',
  'user-agent',
  'x-svc-signature',
  'x-sim-control-token',
  '__proto__',
  'constructor',
  'hasOwnProperty',
);
const tokenName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}$/).filter((n) => !FRAMING.has(n.toLowerCase()));

export interface HeaderOp {
  kind: 'delete' | 'set' | 'dup' | 'case' | 'add';
  name: string;
  value: string;
  mask: number;
}

/** Edits of a valid, signed header set: drop one, change one, repeat one, re-case a name, add one. */
export const headerOps = fc.array(
  fc.record({
    kind: fc.constantFrom<HeaderOp['kind']>('delete', 'set', 'dup', 'case', 'add'),
    name: fc.oneof({ weight: 4, arbitrary: knownName }, { weight: 1, arbitrary: tokenName }),
    value: headerValue,
    mask: fc.integer(),
  }),
  { maxLength: 6 },
);

/** Applies header edits; a repeated header becomes an array (sent as several lines). */
export function applyHeaderOps(pairs: [string, string][], ops: HeaderOp[]): [string, string | string[]][] {
  const out: [string, string | string[]][] = pairs.map(([n, v]) => [n, v]);
  const find = (name: string) => out.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  for (const op of ops) {
    const i = find(op.name);
    switch (op.kind) {
      case 'delete':
        if (i >= 0) out.splice(i, 1);
        break;
      case 'set':
        if (i >= 0) out[i] = [out[i][0], op.value];
        else out.push([op.name, op.value]);
        break;
      case 'dup':
        if (i >= 0) out[i] = [out[i][0], [...[out[i][1]].flat(), op.value]];
        else out.push([op.name, [op.value, op.value]]);
        break;
      case 'case':
        if (i >= 0)
          out[i] = [
            [...out[i][0]].map((c, k) => ((op.mask >> (k % 31)) & 1 ? c.toUpperCase() : c.toLowerCase())).join(''),
            out[i][1],
          ];
        break;
      case 'add':
        out.push([op.name, op.value]);
        break;
    }
  }
  return out;
}

/** The size of a header block, roughly as sent. */
export function headerBytes(headers: [string, string | string[]][]): number {
  let n = 0;
  for (const [name, v] of headers) for (const value of [v].flat()) n += name.length + value.length + 4;
  return n;
}

/** An Authorization value built from parts, some of them the right value (filled in when the request is signed). */
export interface AuthShape {
  scheme: string;
  /** A part's value; `CORRECT` stands for the right one, filled in when the request is signed. */
  parts: { key: string; sep: string; value: string }[];
  join: string;
}

export const authShape: fc.Arbitrary<AuthShape> = fc.record({
  scheme: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'svc-hmac:',
        'SVC-HMAC:',
        '  svc-hmac: ',
        'Svc-Hmac:',
        'svc-hmac',
        'svc-hmac::',
        'Bearer',
        'hmac:',
        '',
        'svc-hmac:svc-hmac:',
      ),
    },
    { weight: 1, arbitrary: headerText },
  ),
  parts: fc.array(
    fc.record({
      key: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            'apiuser',
            'signedheaders',
            'algorithm',
            'signature',
            'APIUSER',
            'Signature',
            '',
            ' ',
            '__proto__',
            'constructor',
          ),
        },
        { weight: 1, arbitrary: headerText },
      ),
      sep: fc.constantFrom('=', ' = ', '==', ':', '', '=\t'),
      value: fc.oneof(
        { weight: 4, arbitrary: fc.constant('CORRECT' as const) },
        { weight: 2, arbitrary: headerText },
        { weight: 1, arbitrary: absurd },
        { weight: 1, arbitrary: fc.constant('') },
      ),
    }),
    { maxLength: 6 },
  ),
  join: fc.constantFrom(',', ', ', ' ,', ';', ',,', '\t,', ' '),
});

/** The Authorization value of a shape, with CORRECT parts taken from a validly signed value. */
export function authValue(shape: AuthShape, valid: string): string {
  const correct = new Map<string, string>();
  for (const part of valid.slice(valid.indexOf(':') + 1).split(',')) {
    const [k, v] = part.trim().split('=');
    correct.set(k, v);
  }
  const parts = shape.parts.map(
    ({ key, sep, value }) =>
      `${key}${sep}${value === 'CORRECT' ? (correct.get(key.trim().toLowerCase()) ?? 'x') : value}`,
  );
  return `${shape.scheme}${parts.join(shape.join)}`;
}

// ---- Bodies

const deepText = fc
  .tuple(fc.integer({ min: 50, max: 10_000 }), fc.constantFrom('array', 'object', 'mixed', 'unclosed'))
  .map(([n, kind]) => {
    switch (kind) {
      case 'array':
        return `${'['.repeat(n)}${']'.repeat(n)}`;
      case 'object':
        return `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      case 'mixed':
        return `${'[{"b":'.repeat(n >> 1)}null${'}]'.repeat(n >> 1)}`;
      default:
        return '['.repeat(n);
    }
  });

const protoText = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__":{"__proto__":{"isAdmin":true}}}',
  '{"__proto__":null}',
  '{"constructor":null}',
  '{"hasOwnProperty":1,"toString":"x","valueOf":{}}',
  "{__proto__:{polluted:'yes'}}",
  '{constructor:{prototype:{isAdmin:true}}}',
);

const scalarText = fc.oneof(
  fc.constantFrom(
    'null',
    'true',
    'false',
    '0',
    '-0',
    '1e309',
    '-1e309',
    '150',
    '151',
    '170',
    '171',
    '950',
    '990',
    '"150"',
    '" 150 "',
    '""',
    '"null"',
    '[]',
    '{}',
    '"true"',
    '"FALSE"',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.integer().map(String),
);

const stringText = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.integer({ min: 200, max: 30_000 }).map((n) => 'x'.repeat(n)),
    fc.constantFrom(
      'user@example.com',
      'dXNlckBleGFtcGxlLmNvbQ==',
      'a@b',
      '@',
      'FiveMins',
      'TenMins',
      'UserKeyAndPattern',
      'NEW',
      'CANCEL',
      '203.0.113.9',
      '999.1.1.1',
      'Manual',
    ),
  )
  .map((s) => JSON.stringify(s));

const relaxedText = fc.constantFrom(
  "{svcUser:'user@example.com',}",
  "'x'",
  "{'a':1,}",
  'Infinity',
  'NaN',
  '0x1F',
  "{a:'",
  '/* c */ {}',
  '+1',
  '[1,2,]',
);

/**
 * A JSON (or nearly JSON) value as text: scalars, strings of every kind and length, trees, `__proto__`, deep nesting.
 */
export const valueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: scalarText },
  { weight: 4, arbitrary: stringText },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: protoText },
  { weight: 1, arbitrary: deepText },
  { weight: 1, arbitrary: relaxedText },
);

const objectText = (entries: [string, string][]) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

const USER = '"user@example.com"';
const ID = '"00000000-0000-0000-0000-000000000000"';
/** A valid body of each operation, as key -> value text; the endpoint and type that carry it. */
const BASES: { path: string; type: number; body: [string, string][] }[] = [
  {
    path: '/v1/svc/challenge',
    type: 150,
    body: [
      ['svcUser', USER],
      ['challengeType', '"UserKeyAndPattern"'],
      ['challengeExpiry', '"FiveMins"'],
      ['enableQRcode', 'false'],
      ['status', '"NEW"'],
    ],
  },
  {
    path: '/v1/svc/challenge',
    type: 151,
    body: [
      ['challengeId', ID],
      ['svcUser', USER],
      ['status', '"CANCEL"'],
    ],
  },
  {
    path: '/v1/svc/status',
    type: 171,
    body: [
      ['challengeId', ID],
      ['svcUser', USER],
    ],
  },
  {
    path: '/v1/svc/verify',
    type: 170,
    body: [
      ['challengeId', ID],
      ['svcUser', USER],
      ['authCode', '"123456"'],
      ['verifyType', '"Manual"'],
    ],
  },
  {
    path: '/v1/svc/blocked',
    type: 950,
    body: [
      ['svcUser', USER],
      ['ipAddress', '"198.51.100.7"'],
    ],
  },
  { path: '/v1/svc/time', type: 990, body: [] },
];

const BODY_KEYS = [
  'svcUser',
  'challengeType',
  'challengeExpiry',
  'enableQRcode',
  'enableQRCode',
  'enableAutoVerify',
  'status',
  'challengeId',
  'challngeId',
  'authCode',
  'verifyType',
  'ipAddress',
  'profile',
  'expiry',
  '__proto__',
  'constructor',
  'prototype',
];
const ENVELOPE_KEYS = ['id', 'utctime', 'utcTime', 'apiUser', 'apiuser', 'type', 'body', '__proto__', 'constructor'];

const edits = (keys: string[]) =>
  fc.array(
    fc.tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...keys) },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      ),
      valueText,
      fc.boolean(),
    ),
    { maxLength: 4 },
  );

/** Applies edits: replace a key's value (or add it), or drop the key; duplicates stay (JSON.parse keeps the last). */
function edit(base: [string, string][], changes: [string, string, boolean][]): [string, string][] {
  let out = base.slice();
  for (const [key, value, drop] of changes) {
    if (drop) out = out.filter(([k]) => k !== key);
    else if (out.some(([k]) => k === key)) out = out.map(([k, v]) => [k, k === key ? value : v]);
    else out.push([key, value]);
  }
  return out;
}

export interface BodyCase {
  path: string;
  body: string | Buffer;
}

/** A request body: a valid envelope of some operation with hostile edits, or any value, bytes, or invalid UTF-8. */
export function bodyCase(apiUser: string): fc.Arbitrary<BodyCase> {
  const envelope = fc
    .tuple(
      fc.constantFrom(...BASES),
      edits(BODY_KEYS),
      edits(ENVELOPE_KEYS),
      fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: valueText }),
      fc.constantFrom(...API_PATHS),
    )
    .map(([base, bodyEdits, envEdits, wholeBody, otherPath]) => {
      const body = wholeBody ?? objectText(edit(base.body, bodyEdits));
      const env = edit(
        [
          ['id', '"ref-1"'],
          ['utctime', `"${Date.now()}"`],
          ['apiUser', `"${apiUser}"`],
          ['type', String(base.type)],
          ['body', body],
        ],
        envEdits,
      );
      // Mostly the endpoint that serves the operation, sometimes another one.
      return { path: bodyEdits.length % 5 === 4 ? otherPath : base.path, text: objectText(env) };
    });
  const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b.map((x) => x | 0x80)));
  return fc.oneof(
    { weight: 8, arbitrary: envelope.map(({ path, text }) => ({ path, body: text })) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...API_PATHS), valueText).map(([path, body]) => ({ path, body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...API_PATHS), fc.uint8Array({ maxLength: 300 }))
        .map(([path, b]) => ({ path, body: Buffer.from(b) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(envelope, invalidUtf8, fc.nat()).map(([{ path, text }, bad, at]) => {
        const k = at % (text.length + 1);
        return { path, body: Buffer.concat([Buffer.from(text.slice(0, k)), bad, Buffer.from(text.slice(k))]) };
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(...API_PATHS).map((path) => ({ path, body: '' })) },
  );
}

// ---- Raw bytes

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b));
const printable = (max: number) => fc.string({ unit: headerChar, maxLength: max }).map((s) => Buffer.from(s, 'latin1'));

/** A request written byte by byte: any method, target, version, header bytes (NUL, CR, LF, UTF-8, Latin-1) and body. */
export const rawRequest = fc
  .record({
    method: fc.oneof(
      fc
        .constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'G ET', '')
        .map((s) => Buffer.from(s)),
      bytes(10),
    ),
    target: fc.oneof(
      fc
        .constantFrom(
          ...API_PATHS,
          '/',
          '*',
          '/phone/x',
          '/phone/%E0%A4%A',
          '/status?code=abc',
          '/%',
          '/v1/svc/../../etc/passwd',
          '//v1/svc/time',
          '/v1/svc/time?a=%00',
          'http://evil/v1/svc/time',
        )
        .map((s) => Buffer.from(s)),
      bytes(40),
      printable(40),
    ),
    version: fc
      .constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', 'http/1.1', '', 'HTTP/1.1\r\nHTTP/1.1')
      .map((s) => Buffer.from(s)),
    headers: fc.array(
      fc.tuple(
        fc.oneof(
          printable(20),
          bytes(20),
          fc
            .constantFrom('authorization', 'x-svc-utctime', 'x-svc-cnonce', 'x-svc-apiuser', 'host')
            .map((s) => Buffer.from(s)),
        ),
        fc.oneof(printable(60), bytes(60)),
      ),
      { maxLength: 6 },
    ),
    body: fc.oneof(bytes(100), printable(100)),
  })
  .map(({ method, target, version, headers, body }) => {
    const lines = headers.map(([n, v]) => Buffer.concat([n, Buffer.from(': '), v, Buffer.from('\r\n')]));
    const bytes = Buffer.concat([
      method,
      Buffer.from(' '),
      target,
      Buffer.from(' '),
      version,
      Buffer.from('\r\n'),
      ...lines,
      Buffer.from(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
      body,
    ]);
    return { bytes, target: target.toString('latin1') };
  });

/** Pages for people (HTML) and the control API (its own JSON) live beside the API: a target there may get them. */
export const isPageTarget = (target: string) => /^\/($|\?|#|status|phone|favicon|__sim)/.test(target);
