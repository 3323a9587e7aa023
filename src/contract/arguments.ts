import { errorText } from '../output/error-text.js';
import { ControlError, formatPath, ScenarioError } from './errors.js';

// What an in-process caller passes, read once into plain data: a throwing getter or Proxy fails here, at once.

/** The most entries a list or keys an object may have, the deepest nesting, and the most values in all. */
const MAX_ITEMS = 100_000;
const MAX_DEPTH = 64;
const MAX_VALUES = 1_000_000;

type Path = (string | number)[];

class Unreadable extends Error {
  constructor(
    readonly path: Path,
    readonly problem: string,
  ) {
    super(problem);
  }
}

function plain(value: unknown): unknown {
  let values = 0;
  const copy = (v: unknown, path: Path): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    if (path.length > MAX_DEPTH) throw new Unreadable(path, `is nested more than ${MAX_DEPTH} deep`);
    const read = <T>(what: () => T, at: Path = path): T => {
      try {
        return what();
      } catch (e) {
        throw e instanceof Unreadable ? e : new Unreadable(at, `reading it threw: ${errorText(e)}`);
      }
    };
    const counted = (n: number, what: string) => {
      if (!Number.isSafeInteger(n) || n > MAX_ITEMS)
        throw new Unreadable(path, `has ${n} ${what}; at most ${MAX_ITEMS}`);
      values += n;
      if (values > MAX_VALUES) throw new Unreadable(path, `holds more than ${MAX_VALUES} values in all`);
    };
    const item = (key: string | number) => {
      const at = [...path, key];
      return copy(
        read(() => (v as Record<string | number, unknown>)[key], at),
        at,
      );
    };
    if (read(() => Array.isArray(v))) {
      const length = read(() => (v as unknown[]).length);
      counted(length, 'items');
      return Array.from({ length }, (_, i) => item(i));
    }
    const proto = read((): unknown => Object.getPrototypeOf(v));
    // A Date, a Buffer, a class's instance: not data a caller writes as a literal; the checks after this refuse it.
    if (proto !== Object.prototype && proto !== null) return v;
    const keys = read(() => Object.keys(v));
    counted(keys.length, 'keys');
    // Entries made as data properties: a key named `__proto__` stays an own key, for the checks after this to refuse.
    return Object.fromEntries(keys.map((key) => [key, item(key)]));
  };
  return copy(value, []);
}

/** A method's argument, read once; a ControlError (400) names `name` and where in it reading failed. */
export function argumentOnce<T>(value: T, name: string): T {
  try {
    return plain(value) as T;
  } catch (e) {
    // Every read of `plain` is wrapped: what it throws is Unreadable.
    const { path, problem } = e as Unreadable;
    throw new ControlError(400, `${name}: ${path.length ? `${formatPath(path)}: ` : ''}${problem}`);
  }
}

/** Options or a scenario object, read once; a ScenarioError names `source` and the key whose reading failed. */
export function scenarioOnce<T>(value: T, source: string): T {
  try {
    return plain(value) as T;
  } catch (e) {
    const { path, problem } = e as Unreadable;
    throw new ScenarioError(source, [{ path, message: problem }]);
  }
}
