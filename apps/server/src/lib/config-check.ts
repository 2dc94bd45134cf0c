import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';

/**
 * A setting an operator got wrong: which file (or `environment`) and, per mistake, the field and what it must
 * be — `config/centers.yaml: centers[1].cardTypes[0].cardsPerNode must be an integer ≥ 1 (got 0)`. The entry
 * points print `message` and exit 2 instead of a stack trace (`exitOnConfigError`).
 */
export class ConfigError extends Error {
  constructor(
    /** The file the mistakes are in, or `environment`. */
    readonly source: string,
    /** One line per mistake, each starting with the field's path. */
    readonly issues: string[],
  ) {
    super(issues.length === 1 ? `${source}: ${issues[0]}` : `${source}: ${issues.length} mistakes\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Schema options our checks read besides JSON Schema's own: `expected` is what the field must be, in words
 * ("an http:// or https:// URL"), for the rules a keyword alone says badly (patterns, literals).
 */
export interface Expectation {
  expected?: string;
}

const MAX_ISSUES = 20;

/**
 * Checks `value` against `schema` and answers it typed, or throws a ConfigError listing every field that is
 * wrong (the first mistake per field, at most 20), each named by its path (`centers[1].cardTypes[0].nodes`).
 */
export function checkConfig<T extends TSchema>(schema: T, value: unknown, source: string): Static<T> {
  const issues = describeErrors(schema, value);
  if (issues.length) throw new ConfigError(source, issues);
  return value as Static<T>;
}

/** What is wrong with `value`, one line per field (empty: nothing). */
export function describeErrors(schema: TSchema, value: unknown): string[] {
  const seen = new Set<string>();
  const issues: string[] = [];
  for (const e of Value.Errors(schema, value)) {
    // A missing or wrong field also fails the checks below it (a required string that is absent is not a
    // string either): the first error of a path says it best.
    if ([...seen].some((p) => e.path === p || e.path.startsWith(`${p}/`))) continue;
    seen.add(e.path);
    issues.push(`${fieldPath(e.path)} ${expectation(e)}${got(e)}`);
    if (issues.length === MAX_ISSUES) break;
  }
  return issues;
}

/** `/centers/1/cardTypes/0/cardsPerNode` → `centers[1].cardTypes[0].cardsPerNode` (JSON pointer unescaped). */
export function fieldPath(pointer: string): string {
  if (!pointer) return '(the whole file)';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, seg) => (/^\d+$/.test(seg) ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg), '');
}

function expectation(e: ValueError): string {
  const s = e.schema as TSchema & Expectation & Record<string, unknown>;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      // A comma in an unquoted value of a flow mapping (`{ name: A (b, c) }`) ends the value and makes the
      // rest a key of its own: the value is cut short with no YAML error. This is where it shows.
      return 'is not a known field (a misspelling? in a { … } entry, quote values that contain a comma)';
  }
  if (s.expected) return `must be ${s.expected}`;
  switch (e.type) {
    case ValueErrorType.Union: {
      const options = (s.anyOf as (TSchema & { const?: unknown })[] | undefined)?.map((o) => o.const);
      return options?.every((o) => o !== undefined) ? `must be one of ${options.join(', ')}` : 'has the wrong shape';
    }
    case ValueErrorType.Literal:
      return `must be ${String(s.const)}`;
    case ValueErrorType.Integer:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be ${bounded('an integer', s)}`;
    case ValueErrorType.Number:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `must be ${bounded('a number', s)}`;
    case ValueErrorType.String:
      return 'must be text (quote it if YAML reads it as a number, a date or true/false)';
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${String(s.minLength)} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(s.maxLength)} characters`;
    case ValueErrorType.StringPattern:
      return `must match ${String(s.pattern)}`;
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Array:
      return 'must be a list';
    case ValueErrorType.ArrayMinItems:
      return `must list at least ${String(s.minItems)}`;
    case ValueErrorType.Object:
      return 'must be a mapping (key: value)';
    default:
      return e.message;
  }
}

function bounded(what: string, s: Record<string, unknown>): string {
  const lo = s.minimum !== undefined ? `≥ ${String(s.minimum)}` : s.exclusiveMinimum !== undefined ? `> ${String(s.exclusiveMinimum)}` : '';
  const hi = s.maximum !== undefined ? `≤ ${String(s.maximum)}` : s.exclusiveMaximum !== undefined ? `< ${String(s.exclusiveMaximum)}` : '';
  return [what, lo, hi && lo ? `and ${hi}` : hi].filter(Boolean).join(' ');
}

/** The offending value, short; none for a missing field, an unknown one or a whole mapping. */
function got(e: ValueError): string {
  if (e.type === ValueErrorType.ObjectRequiredProperty || e.type === ValueErrorType.ObjectAdditionalProperties) return '';
  if (e.value === undefined || (typeof e.value === 'object' && e.value !== null)) return '';
  const text = JSON.stringify(e.value);
  return ` (got ${text.length > 60 ? `${text.slice(0, 57)}…` : text})`;
}

/**
 * Runs an entry point's start; a ConfigError ends the process with its message and exit code 2 (what an
 * operator reads in the journal), anything else is thrown on as it is.
 */
export async function exitOnConfigError<T>(what: string, start: () => T | Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`${what} not started — ${e.message}`);
    process.exit(2);
  }
}
