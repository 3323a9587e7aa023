import type { TObject, TSchema } from '@sinclair/typebox';
import { closest } from './closest.js';
import { CommandLineSchema, spellingOf, type CommandLine } from './command-line.js';
import { FlagError } from './errors.js';

/**
 * The command line's flags, read from the arguments and the environment, and the help text: both made from the one
 * schema of what the command line takes (command-line.ts), each flag's value read by its option's type (a whole
 * number within its bounds, one of its choices, a text held to its pattern, a list, a switch). Written here rather
 * than with a flag library: loading one cost a tenth of the command line's start-up.
 */

/** A flag as the schema gives it. */
export interface Flag {
  /** The option it sets, e.g. `scenarioDirs`. */
  key: string;
  /** The long name without dashes, e.g. `scenario-dir`. */
  name: string;
  short?: string;
  /** The value's placeholder, e.g. `<port>`; absent for a switch. */
  value?: string;
  description: string;
  /** Read from this variable when the flag is not given: `MFA_SIM_` and the name in capitals (none for an action). */
  env?: string;
  default?: string;
  choices?: readonly string[];
  /** Turns the text into the option's value; throws FlagError (its message follows the flag's name). */
  parse: (text: string) => unknown;
  /** Given again (or in its variable), the values add up, each split at this separator. */
  listSeparator?: string;
  /** `--no-<name>`: the switch sets false (its variable says on or off). */
  negated?: boolean;
  /** Prints something and exits: --help, --version, --codes... */
  action?: boolean;
}

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flag of an option of the command line's schema. */
function flagOf(key: string, schema: TSchema): Flag {
  const spelling = spellingOf(schema);
  const name = spelling.name ?? kebab(key);
  const isSwitch = schema.type === 'boolean';
  const isList = schema.type === 'array' && spelling.list !== undefined;
  const items = isList ? (schema.items as TSchema) : schema;
  const choices = (items.anyOf as TSchema[] | undefined)?.every((a) => typeof a.const === 'string')
    ? (items.anyOf as TSchema[]).map((a) => a.const as string)
    : undefined;
  const fallback = spelling.default ?? (schema.default === undefined ? undefined : String(schema.default));
  return {
    key,
    name,
    short: spelling.short,
    value: isSwitch ? undefined : (spelling.value ?? '<value>'),
    description: schema.description ?? '',
    env: spelling.action ? undefined : `MFA_SIM_${name.toUpperCase().replace(/-/g, '_')}`,
    default: fallback,
    choices,
    parse: spelling.parse ?? readerOf(items, choices, isList),
    listSeparator: spelling.list,
    negated: spelling.negated,
    action: spelling.action,
  };
}

/**
 * How a value of this type is read from its text. The items of a list are held to their pattern with the other
 * options at start, where the message names the item by its place (`allowedHosts[1]: ...`).
 */
function readerOf(schema: TSchema, choices: readonly string[] | undefined, isList: boolean): (text: string) => unknown {
  if (choices) {
    return (text) => {
      if (!choices.includes(text))
        throw new FlagError(`must be one of ${choices.join(', ')} (not ${JSON.stringify(text.slice(0, 40))})`);
      return text;
    };
  }
  if (schema.type === 'integer') return wholeNumber(schema.minimum as number, schema.maximum as number);
  if (typeof schema.pattern === 'string' && !isList) {
    const pattern = new RegExp(schema.pattern);
    return (text) => {
      if (!pattern.test(text)) throw new FlagError(String(schema.errorMessage ?? `must match ${schema.pattern}`));
      return text;
    };
  }
  return (text) => text;
}

function wholeNumber(min: number, max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      throw new FlagError(`must be a whole number from ${min} to ${max}`);
    return Number(text);
  };
}

/** The flags of a command's schema (the command line's, or `mfa-sim probe`'s), in the order its help lists them. */
export function flagsOf(schema: TObject): Flag[] {
  return Object.entries(schema.properties).map(([key, s]) => flagOf(key, s));
}

/** The flags, in the order the help lists them. */
export const FLAGS: readonly Flag[] = flagsOf(CommandLineSchema);

const shown = (f: Flag) => `--${f.negated ? 'no-' : ''}${f.name}`;

/** A switch's variable: on or off, in the words people write. */
function onOff(text: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text.trim())) return true;
  if (/^(0|false|no|off)$/i.test(text.trim())) return false;
  throw new FlagError('must be on or off (true/false, yes/no, 1/0)');
}

/** A flag's value as the option holds it, checked; `where` names the flag or variable in a message. */
function valueOf(f: Flag, text: string, where: string): unknown {
  try {
    return f.parse(text);
  } catch (e) {
    if (e instanceof FlagError) throw new FlagError(`${where} ${e.message}.`);
    throw e;
  }
}

function splitList(text: string, separator: string): string[] {
  return text
    .split(separator)
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The flag a mistyped name most likely meant, within two edits, if any. */
function nearest(name: string, table: readonly Flag[]): string | undefined {
  // A switch that turns something off is also known without its `no-`: `--hints` is near `--no-hints`.
  const names = new Map(
    table.flatMap((f) => [
      [shown(f).slice(2), shown(f)],
      [f.name, shown(f)],
    ]),
  );
  const near = closest(name, [...names.keys()], 2);
  return near === undefined ? undefined : names.get(near);
}

/**
 * The options the arguments and the environment give, by their keys in the schema, defaults filled in, each value
 * checked. A flag wins over its variable. Throws FlagError for anything it cannot use.
 */
export function parseFlags(
  args: readonly string[],
  env: Record<string, string | undefined>,
  table: readonly Flag[] = FLAGS,
): CommandLine {
  const given = new Map<Flag, string[]>();
  const byLong = new Map(table.map((f) => [shown(f).slice(2), f]));
  const byShort = new Map(table.filter((f) => f.short).map((f) => [f.short!, f]));
  const take = (f: Flag, value: string) => given.set(f, [...(given.get(f) ?? []), value]);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let f: Flag | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      f = byLong.get(name);
      if (!f) {
        const near = nearest(name, table);
        throw new FlagError(`unknown flag --${name.slice(0, 40)}${near ? ` (did you mean ${near}?)` : ''}.`);
      }
    } else if (/^-[A-Za-z]/.test(arg)) {
      // -q, -qw (switches together), -p 8080 or -p8080.
      for (let k = 1; k < arg.length; k++) {
        const s = byShort.get(arg[k]);
        if (!s) throw new FlagError(`unknown flag -${arg[k]}.`);
        if (s.value === undefined) {
          take(s, '');
          continue;
        }
        f = s;
        inline = k + 1 < arg.length ? arg.slice(k + 1) : undefined;
        break;
      }
      if (!f) continue;
    } else {
      throw new FlagError(`unexpected argument ${JSON.stringify(arg.slice(0, 40))}: mfa-sim takes only flags.`);
    }
    if (f.value === undefined) {
      if (inline !== undefined) throw new FlagError(`${shown(f)} takes no value.`);
      take(f, '');
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new FlagError(`${shown(f)} needs a value: ${shown(f)} ${f.value}.`);
    take(f, value);
  }

  const out: Record<string, unknown> = {};
  for (const f of table) {
    const values = given.get(f);
    if (f.value === undefined) {
      if (values) out[f.key] = !f.negated;
      else if (f.env && env[f.env] !== undefined && env[f.env]!.trim() !== '')
        out[f.key] = valueOfSwitch(f, env[f.env]!);
      continue;
    }
    const fromEnv = f.env ? env[f.env] : undefined;
    const texts =
      values ??
      (fromEnv !== undefined && fromEnv !== '' ? [fromEnv] : f.default !== undefined ? [f.default] : undefined);
    if (!texts) continue;
    const where = values ? shown(f) : fromEnv !== undefined && fromEnv !== '' ? f.env! : shown(f);
    if (f.listSeparator)
      out[f.key] = texts.flatMap((t) => splitList(t, f.listSeparator!)).map((t) => valueOf(f, t, where));
    else out[f.key] = valueOf(f, texts[texts.length - 1], where);
  }
  // Each value was read by its option's type in the schema: the object is what the schema describes.
  return out;
}

function valueOfSwitch(f: Flag, text: string): boolean {
  try {
    return onOff(text);
  } catch (e) {
    throw new FlagError(`${f.env} ${(e as Error).message}.`);
  }
}

/** Text wrapped to `width` columns, its lines after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  // Never broken after a colon: "env: MFA_SIM_PORT" stays on one line.
  for (const word of text.split(/(?<!:) /)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** What the help says of a flag beside its description: its list separator, choices, default and variable. */
function flagNotes(f: Flag): string[] {
  return [
    f.listSeparator ? `repeatable, or several separated by "${f.listSeparator}"` : '',
    f.choices ? `choices: ${f.choices.join(', ')}` : '',
    f.default !== undefined ? `default: ${f.default}` : '',
    f.env ? `env: ${f.env}${f.negated ? '=off' : ''}` : '',
  ].filter(Boolean);
}

/** How the flag is written, with its short form and value: `-p, --port <port>`. */
export function flagUsage(f: Flag): string {
  return `${f.short ? `-${f.short}, ` : ''}${shown(f)}${f.value ? ` ${f.value}` : ''}`;
}

/** The help text, at one width whatever the terminal: the same text everywhere, docs/command-line.md included. */
export function helpText(
  description: string,
  after: string,
  width = 100,
  table: readonly Flag[] = FLAGS,
  usage = 'mfa-sim [options]',
): string {
  const column = Math.max(...table.map((f) => flagUsage(f).length)) + 4;
  const rows = table.map((f) => {
    const notes = flagNotes(f);
    const text = `${f.description}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    return `  ${flagUsage(f).padEnd(column - 2)}${wrap(text, width, column)}`;
  });
  return [`Usage: ${usage}`, '', wrap(description, width, 0), '', 'Options:', ...rows, '', after, ''].join('\n');
}
