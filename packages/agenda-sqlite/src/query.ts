import type { JobsSort, RemoveJobsOptions } from 'agenda';
import { epoch, parseJson, type SqlValue } from './job-row.ts';

/** A field path segment that needs no quoting in a JSON path or in SQL. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Top-level JobParameters fields a `unique` key may name, with how their column stores them. */
type Kind = 'text' | 'number' | 'date' | 'bool' | 'scalar';
const FIELD_COLUMNS: ReadonlyMap<string, { column: string; kind: Kind }> = new Map<
  string,
  { column: string; kind: Kind }
>([
  ['_id', { column: 'id', kind: 'text' }],
  ['name', { column: 'name', kind: 'text' }],
  ['priority', { column: 'priority', kind: 'number' }],
  ['type', { column: 'type', kind: 'text' }],
  ['nextRunAt', { column: 'next_run_at', kind: 'date' }],
  ['lockedAt', { column: 'locked_at', kind: 'date' }],
  ['lastFinishedAt', { column: 'last_finished_at', kind: 'date' }],
  ['failedAt', { column: 'failed_at', kind: 'date' }],
  ['failCount', { column: 'fail_count', kind: 'number' }],
  ['failReason', { column: 'fail_reason', kind: 'text' }],
  ['repeatTimezone', { column: 'repeat_timezone', kind: 'text' }],
  ['lastRunAt', { column: 'last_run_at', kind: 'date' }],
  ['repeatInterval', { column: 'repeat_interval', kind: 'scalar' }],
  ['repeatAt', { column: 'repeat_at', kind: 'text' }],
  ['disabled', { column: 'disabled', kind: 'bool' }],
  ['progress', { column: 'progress', kind: 'number' }],
  ['debounceStartedAt', { column: 'debounce_started_at', kind: 'date' }],
  ['lastModifiedBy', { column: 'last_modified_by', kind: 'text' }],
  ['fork', { column: 'fork', kind: 'bool' }],
  ['startDate', { column: 'start_date', kind: 'date' }],
  ['endDate', { column: 'end_date', kind: 'date' }],
]);

const SORT_COLUMNS: ReadonlyArray<readonly [keyof JobsSort, string]> = [
  ['nextRunAt', 'next_run_at'],
  ['lastRunAt', 'last_run_at'],
  ['lastFinishedAt', 'last_finished_at'],
  ['priority', 'priority'],
  ['name', 'name'],
  ['data', 'data'],
];

/** Mongo's notion of a sub-document: flattened into paths, where a Date or an array is a value. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** A SQL string literal: SQLite has no backslash escapes, doubling the quote is the whole escaping. */
export const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** `data.a.b.0` → `$.a.b[0]`. Only identifier-like names and array indexes: the path is inlined
 *  into the SQL (so that an expression index on it can match), and `$`-operators have no meaning here. */
const jsonPath = (segments: readonly string[], key: string): string => {
  let path = '$';
  for (const segment of segments) {
    if (IDENTIFIER.test(segment)) path += `.${segment}`;
    else if (ARRAY_INDEX.test(segment)) path += `[${segment}]`;
    else throw new Error(`unsupported field path "${key}": only plain field names and array indexes, no operators`);
  }
  return path;
};

const assertNoOperators = (value: unknown, key: string): void => {
  if (Array.isArray(value)) {
    for (const item of value) assertNoOperators(item, key);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [child, nested] of Object.entries(value)) {
    if (child.startsWith('$'))
      throw new Error(`operator "${child}" in "${key}" is not supported: values are matched by equality`);
    assertNoOperators(nested, key);
  }
};

/** Mongo's equality on one path of a JSON column: typed (1 is not '1' nor true), null matching a
 *  missing field too, sub-documents and arrays compared whole. */
const jsonCondition = (column: string, path: string, key: string, value: unknown, args: SqlValue[]): string => {
  assertNoOperators(value, key);
  // Dates and other toJSON values compare the way they were stored.
  const normalized: unknown = value === undefined ? null : parseJson(JSON.stringify(value) ?? 'null');
  const literal = sqlString(path);
  const extract = `json_extract(${column}, ${literal})`;
  const type = `json_type(${column}, ${literal})`;
  if (normalized === null) return `${extract} IS NULL`;
  if (typeof normalized === 'boolean') return `${type} = '${normalized ? 'true' : 'false'}'`;
  if (typeof normalized === 'number') {
    args.push(normalized);
    return `(${type} IN ('integer', 'real') AND ${extract} = ?)`;
  }
  if (typeof normalized === 'string') {
    args.push(normalized);
    return `(${type} = 'text' AND ${extract} = ?)`;
  }
  args.push(JSON.stringify(normalized));
  return `(${type} = '${Array.isArray(normalized) ? 'array' : 'object'}' AND ${extract} = json(?))`;
};

const columnCondition = (
  field: { column: string; kind: Kind },
  key: string,
  value: unknown,
  args: SqlValue[],
): string => {
  const { column, kind } = field;
  if (value === undefined || value === null) return `${column} IS NULL`;
  const unsupported = () => new Error(`unsupported value for "${key}": only equality with a ${kind} value`);
  switch (kind) {
    case 'date':
      if (!(value instanceof Date || typeof value === 'string' || typeof value === 'number')) throw unsupported();
      args.push(epoch(value, key));
      return `${column} = ?`;
    case 'bool':
      if (typeof value !== 'boolean') throw unsupported();
      return `${column} = ${value ? 1 : 0}`;
    case 'number':
      if (typeof value !== 'number') throw unsupported();
      break;
    case 'text':
      if (typeof value !== 'string') throw unsupported();
      break;
    case 'scalar':
      if (typeof value !== 'string' && typeof value !== 'number') throw unsupported();
      break;
  }
  args.push(value);
  return `${column} = ?`;
};

/** One key of a `unique` object or of a flattened data filter: `data`, `data.<path>` or a top-level field. */
export const fieldCondition = (key: string, value: unknown, args: SqlValue[]): string => {
  const [head, ...rest] = key.split('.');
  if (head === 'data') return jsonCondition('data', jsonPath(rest, key), key, value, args);
  const field = rest.length === 0 && head !== undefined ? FIELD_COLUMNS.get(head) : undefined;
  if (field === undefined) throw new Error(`unsupported field path "${key}": use data.<path> or a job field`);
  return columnCondition(field, key, value, args);
};

/** Mongo's flattenDataFilter: a partial match on the data document, key by key. */
export const dataConditions = (data: unknown, args: SqlValue[]): string[] => {
  if (!isPlainObject(data)) return [jsonCondition('data', '$', 'data', data, args)];
  const conditions: string[] = [];
  const walk = (object: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(object)) {
      const path = `${prefix}.${key}`;
      if (isPlainObject(value)) walk(value, path);
      else conditions.push(fieldCondition(path, value, args));
    }
  };
  walk(data, 'data');
  return conditions;
};

export const strings = (values: unknown): string[] =>
  Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];

/** The WHERE of removeJobs, disableJobs and enableJobs; empty when no criterion was given. */
export const selectionConditions = (options: RemoveJobsOptions, args: SqlValue[]): string[] => {
  const conditions: string[] = [];
  if (options.id) {
    conditions.push('id = ?');
    args.push(String(options.id));
  } else if (Array.isArray(options.ids) && options.ids.length > 0) {
    conditions.push('id IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(options.ids.map(String)));
  }
  const names = strings(options.names);
  const notNames = strings(options.notNames);
  if (options.name && typeof options.name === 'string') {
    conditions.push('name = ?');
    args.push(options.name);
  } else if (names.length > 0) {
    conditions.push('name IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(names));
  } else if (notNames.length > 0) {
    conditions.push('name NOT IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(notNames));
  }
  if (options.data !== undefined) conditions.push(...dataConditions(options.data, args));
  return conditions;
};

export const whereClause = (conditions: readonly string[]) =>
  conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';

export const orderBy = (sort: JobsSort | undefined): string => {
  const terms: string[] = [];
  for (const [field, column] of SORT_COLUMNS) {
    const direction = sort?.[field];
    if (direction === 'asc' || direction === 'desc') terms.push(`${column} ${direction.toUpperCase()}`);
  }
  // Mongo's default when no usable sort is given; rowid keeps pages stable between equal keys.
  if (terms.length === 0) terms.push('next_run_at DESC', 'last_run_at DESC');
  return `ORDER BY ${terms.join(', ')}, rowid ASC`;
};
