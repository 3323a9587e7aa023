/** How much a finding matters; a run fails on those at or above `failOn`. */
export type Severity = 'info' | 'warning' | 'error';
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error'];
/** Which requests a view covers: the whole `run` (what a suite is judged on) or the current `scenario` (one test's). */
export type Scope = 'run' | 'scenario';
export const SCOPES: readonly Scope[] = ['run', 'scenario'];

/** One thing a client did, however often. */
export interface Finding {
  /** Stable: reports and tests name findings by it. */
  id: string;
  severity: Severity;
  /** The API user whose requests showed it (`unknown` for the row of API users the simulator does not know). */
  apiUser: string;
  /** What the client did, why it matters, and the fix. */
  explanation: string;
  /** The latest figures behind it, when it has some ("1.2 s apart"). */
  detail?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
  /** No signed request showed it: anyone could have sent them, so it never fails a run, at any `failOn`. */
  unsigned?: true;
}

/** A hint the doctor gave (a signature mistake, a clock off, a nonce reused), however often. */
export interface HintSeen {
  code: number;
  id: string;
  text: string;
  apiUser?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
}

const error = (explanation: string) => ({ severity: 'error' as Severity, explanation });
const warning = (explanation: string) => ({ severity: 'warning' as Severity, explanation });
const info = (explanation: string) => ({ severity: 'info' as Severity, explanation });

/** Every finding the doctor knows: its severity and explanation. */
export const FINDING_KINDS = {
  'retry-not-resigned': error(
    'A request was retried with the nonce of an attempt that failed on the network or with a 5xx. The first attempt may have reached the service, which then refuses the retry as a replay (-4034). Sign every retry again, with a new nonce and time.',
  ),
  'drift-not-corrected': error(
    "After -4036 the client kept signing with the same clock: the next request was off by as much again, or none succeeded after it. Every answer's utctime is the server's time: keep the difference and add it to your clock when signing.",
  ),
  'stale-envelope': warning(
    "The envelope's utctime is more than a second away from the time in the signed utctime header: the envelope was built once and sent again (for example on every status poll). The service judges the headers, so it passes, but it is a stale request to anything that reads it. Build the envelope anew for every request.",
  ),
  'envelope-id-reused': warning(
    "The same envelope id was sent in more than one request. The id ties a request to its answer in both sides' logs: give every request its own.",
  ),
  'body-relaxed-json': warning(
    "`body` was sent as a string that is not JSON (single quotes, a trailing comma, or 'true' for true). The simulator reads it leniently, as the real service does today; a JSON parser refuses it (strict: -5071). Send `body` as a JSON object.",
  ),
  'body-as-string': info(
    '`body` was sent as a string holding JSON; the interface document shows an object. Accepted leniently; strict answers -5071. Send `body` as a JSON object.',
  ),
  'string-booleans': warning(
    'enableQRcode or enableAutoVerify was sent as the text "true" or "false". Accepted leniently; strict answers -5075. Send JSON true and false.',
  ),
  'base64-user': warning(
    "The user's e-mail address was sent Base64-encoded. Accepted leniently; strict answers -5079. Send the address as it is.",
  ),
  'challngeid-typo': warning(
    'The body names the challenge `challngeId` (a letter missing). Accepted leniently; strict ignores it and answers -5075. Spell it challengeId.',
  ),
  'blocked-on-challenge-endpoint': warning(
    'Type 950 (the blocked check) was sent to /v1/svc/challenge. Accepted leniently; strict answers -5072. Send it to /v1/svc/blocked.',
  ),
  'fast-polling': warning(
    'The status of one challenge was asked more than twice a second, again and again. A user takes seconds to answer: poll once a second or less, and stop when the challenge ends.',
  ),
  'challenge-abandoned': info(
    'A challenge was created and the client never asked its status, verified it or cancelled it. Follow every challenge to its end, or cancel it when the user leaves.',
  ),
  'unknown-api-user': info(
    'Requests named an API user id this simulator does not know, and were refused with -1001: a client configured with the id of another system, or requests sent in its place by someone else. Counted here in one row whatever the ids (the detail names the last); nothing else is kept for them.',
  ),
  'clock-drifting': info(
    "The client's clock moved against the server's by more than 30 s during the run. A clock that drifts ends in -4036: correct it from the answers' utctime now and then. (The simulator's clock frozen or moved by a test resets this measure.)",
  ),
  // Proxy mode (docs/proxy.md): what the service answered, judged against the contract and against mfa-sim.
  'service-not-json': error(
    "The service answered something that is not a JSON envelope (an HTML error page, plain text, an empty body), or JSON under another Content-Type. The interface document says every answer is JSON: a client that parses every answer as the envelope fails on it. mfa-sim plays such answers with a rule's fault: proxy-502 or garbage.",
  ),
  'service-envelope-keys': error(
    'The service answered an envelope whose keys are not exactly id, utctime (utcTime in the sdk response style), status, code, message and moreInfo: a key is missing, or there is one more. The published clients parse answers with strict models that need exactly these keys.',
  ),
  'service-envelope-types': error(
    'The service answered an envelope with a value of the wrong kind: id, utctime, message and moreInfo are strings, status and code integers.',
  ),
  'service-utctime-format': error(
    "The service answered a utctime that is not ISO 8601 UTC with fractional seconds and a Z suffix. Clients read the server's time from it to correct their clocks.",
  ),
  'service-code-unknown': error(
    'The service answered a code that is not in the code table (mfa-sim --codes). A client that maps codes to outcomes has no case for it; mfa-sim cannot answer it.',
  ),
  'service-status-mismatch': error(
    'The service answered a code with another HTTP status than the code table gives it (-40xx with 400, 2025 with 202, -5000 with 500...), or an envelope whose status differs from the HTTP status.',
  ),
  'service-code-scope': warning(
    'The service answered a code that the code table does not give to this operation (a new challenge answered 15000, a time request answered -2006).',
  ),
  'service-more-info': warning(
    'The service answered a moreInfo that is not an http(s) URL of a status page taking the code as its code parameter.',
  ),
  'service-no-answer': error(
    'The service gave no answer in time, an answer larger than the limit, or none at all (the connection refused or closed, TLS not trusted): the client got -5000 from mfa-sim with the reason. A client must treat -5000 as a failure that may be retried, signed anew.',
  ),
  'service-differs-status': error(
    'The service answered this request with another HTTP status or code than mfa-sim would have (the shadow comparison): the service has changed, or mfa-sim plays it wrong. Both answers are in the detail and in the journal entry.',
  ),
  'service-differs-envelope': error(
    "The service's envelope has other keys, or values of other kinds, than mfa-sim's answer to the same request (the shadow comparison). Both answers are in the detail and in the journal entry.",
  ),
  'service-differs-message': warning(
    "The service answered the same code as mfa-sim, with another message: JSON text with other keys, or an error's sentence that does not begin with the code's meaning as the interface document words it. Both answers are in the detail and in the journal entry.",
  ),
} satisfies Record<string, { severity: Severity; explanation: string }>;

export type FindingKind = keyof typeof FINDING_KINDS;
