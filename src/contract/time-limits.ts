import ms from 'ms';
import { INSTANT_WORDS, isInstantInRange } from './response.js';

// Every instant and duration a user gives is bounded where it enters: the clock never leaves the years a `Date` can
// print and a client can sign, and no delay holds a connection or a timer longer than a test run.

const MINUTE = 60_000;
const DAY = 86_400_000;
const YEAR = 365 * DAY;

/** A bounded duration: its smallest and largest value in milliseconds, and the range in words for messages. */
export interface DurationLimit {
  min: number;
  max: number;
  words: string;
}

const limit = (min: number, max: number, words: string): DurationLimit => ({ min, max, words });
const FIFTY_YEARS = limit(-50 * YEAR, 50 * YEAR, 'from -50 years to 50 years (-18250d to 18250d)');

/** The limits of every duration a scenario or the control API may give. */
export const LIMITS = {
  /** `clock.offset`: a server clock off by up to half a century either way. */
  offset: FIFTY_YEARS,
  /** `clock.maxDrift`: the replay memory keeps one drift window, so it is bounded too. */
  maxDrift: limit(0, 7 * DAY, 'from 0 to 7 days (7d)'),
  /** One move of the clock (`advance`). */
  advance: FIFTY_YEARS,
  /** A rule's `delay` and `hangFor`: a connection is never held longer. */
  delay: limit(0, 10 * MINUTE, 'from 0 to 10 minutes (10m)'),
  /** A scripted press (`people:`), after the challenge is made. */
  press: limit(0, DAY, 'from 0 to 1 day (24h)'),
  autoVerifyDelay: limit(0, DAY, 'from 0 to 1 day (24h)'),
} as const;

const DURATION_TEXT = /^-?\d+(\.\d+)?\s*(ms|s|m|h|d)?$/;

/** Milliseconds from a number or a string such as 500ms, 90s, 10m, 2h, -1h, 3d; undefined when it is neither. */
function parseDuration(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const trimmed = v.trim();
  if (trimmed.length > 40 || !DURATION_TEXT.test(trimmed)) return undefined;
  const n = ms(trimmed as ms.StringValue);
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** A duration read and checked against its limit: the milliseconds, or why it cannot be used. */
export function boundedDuration(v: unknown, bound: DurationLimit): { ms: number } | { problem: string } {
  const n = parseDuration(v);
  if (n === undefined)
    return {
      problem: `${shownValue(v)} is not a duration (a number of milliseconds, or 500ms, 90s, 10m, 2h, -1h, 3d)`,
    };
  if (n < bound.min || n > bound.max) return { problem: `${shownValue(v)} is out of range: must be ${bound.words}` };
  return { ms: n };
}

/** An instant from epoch ms or ISO 8601, checked against the clock's range: the ms, or why it cannot be used. */
export function boundedInstant(v: unknown): { ms: number } | { problem: string } {
  const t = typeof v === 'number' ? v : typeof v === 'string' && isCalendarDate(v.trim()) ? Date.parse(v.trim()) : NaN;
  if (Number.isNaN(t) && !(typeof v === 'number'))
    return {
      problem: `${shownValue(v)} is not an instant (ISO 8601 such as 2026-01-01T00:00:00Z, or epoch milliseconds)`,
    };
  if (!isInstantInRange(t)) return { problem: `${shownValue(v)} is out of range: must be ${INSTANT_WORDS}` };
  return { ms: t };
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 whose date exists: `Date.parse` reads 2030-02-30 as 2030-03-02, a date the author did not mean. */
function isCalendarDate(text: string): boolean {
  const m = ISO_INSTANT.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A caller's value as a message quotes it: whole when short (cut, a secret would show in part), else by kind. */
function shownValue(v: unknown): string {
  if (typeof v === 'number') return `\`${v}\``;
  if (typeof v === 'string') return v.length <= 40 ? `\`${v}\`` : `a text of ${v.length} characters`;
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}
