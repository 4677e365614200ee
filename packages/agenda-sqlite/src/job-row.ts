import { toJobId } from 'agenda';
import type { JobParameters, UniqueOpts } from 'agenda';

/** What better-sqlite3 binds: booleans and undefined are not among them. */
export type SqlValue = string | number | null;

/** Every stored column but the id, in the order of the INSERT. */
export const COLUMNS = [
  'name',
  'priority',
  'next_run_at',
  'type',
  'locked_at',
  'last_finished_at',
  'failed_at',
  'fail_count',
  'fail_reason',
  'repeat_timezone',
  'last_run_at',
  'repeat_interval',
  'data',
  'repeat_at',
  'disabled',
  'progress',
  'unique_query',
  'unique_opts',
  'debounce_started_at',
  'last_modified_by',
  'fork',
  'start_date',
  'end_date',
  'skip_days',
] as const;
export type Column = (typeof COLUMNS)[number];
export type JobColumns = Record<Column, SqlValue>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const epoch = (value: unknown, field: string): number | null => {
  if (value === undefined || value === null) return null;
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'string' || typeof value === 'number'
        ? new Date(value).getTime()
        : Number.NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`job field ${field} is not a valid date: ${String(value)}`);
  return ms;
};

export const optionalText = (value: unknown, field: string): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new TypeError(`job field ${field} must be a string`);
  return value;
};

export const optionalNumber = (value: unknown, field: string): number | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new TypeError(`job field ${field} must be a finite number`);
  return value;
};

export const optionalFlag = (value: unknown, field: string): number | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw new TypeError(`job field ${field} must be a boolean`);
  return value ? 1 : 0;
};

/** JSON text, or NULL for undefined (JSON.stringify's own answer for it) so it reads back as absent. */
const jsonText = (value: unknown): string | null => {
  const text: string | undefined = JSON.stringify(value);
  return text ?? null;
};

export const parseJson = (text: string): unknown => JSON.parse(text);

export const repeatIntervalValue = (value: unknown): string | number | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new TypeError('job field repeatInterval must be a string or a number');
  return value;
};

/** Row values in and out; like the Mongo repository, every absent optional field is NULL. */
export const encodeJob = (job: JobParameters<unknown>, lastModifiedBy: string | null): JobColumns => {
  const interval = repeatIntervalValue(job.repeatInterval);
  return {
    name: job.name,
    priority: optionalNumber(job.priority, 'priority') ?? 0,
    next_run_at: epoch(job.nextRunAt, 'nextRunAt'),
    type: job.type,
    locked_at: epoch(job.lockedAt, 'lockedAt'),
    last_finished_at: epoch(job.lastFinishedAt, 'lastFinishedAt'),
    failed_at: epoch(job.failedAt, 'failedAt'),
    fail_count: optionalNumber(job.failCount, 'failCount'),
    fail_reason: optionalText(job.failReason, 'failReason'),
    repeat_timezone: optionalText(job.repeatTimezone, 'repeatTimezone'),
    last_run_at: epoch(job.lastRunAt, 'lastRunAt'),
    repeat_interval: interval,
    data: jsonText(job.data),
    repeat_at: optionalText(job.repeatAt, 'repeatAt'),
    disabled: optionalFlag(job.disabled, 'disabled'),
    progress: optionalNumber(job.progress, 'progress'),
    unique_query: jsonText(job.unique),
    unique_opts: jsonText(job.uniqueOpts),
    debounce_started_at: epoch(job.debounceStartedAt, 'debounceStartedAt'),
    last_modified_by: lastModifiedBy,
    fork: optionalFlag(job.fork, 'fork'),
    start_date: epoch(job.startDate, 'startDate'),
    end_date: epoch(job.endDate, 'endDate'),
    skip_days: jsonText(job.skipDays),
  };
};

/** Reads one agenda_jobs row, checking each column's storage class instead of trusting the file. */
export class RowReader {
  private readonly row: Record<string, unknown>;
  constructor(value: unknown) {
    if (!isRecord(value)) throw new TypeError('agenda_jobs row expected');
    this.row = value;
  }
  private bad(column: string): TypeError {
    return new TypeError(`agenda_jobs.${column} holds an unexpected value: ${String(this.row[column])}`);
  }
  text(column: string): string {
    const value = this.row[column];
    if (typeof value !== 'string') throw this.bad(column);
    return value;
  }
  optionalText(column: string): string | undefined {
    const value = this.row[column];
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'string') throw this.bad(column);
    return value;
  }
  optionalNumber(column: string): number | undefined {
    const value = this.row[column];
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'number') throw this.bad(column);
    return value;
  }
  number(column: string): number {
    const value = this.optionalNumber(column);
    if (value === undefined) throw this.bad(column);
    return value;
  }
  date(column: string): Date | undefined {
    const value = this.optionalNumber(column);
    return value === undefined ? undefined : new Date(value);
  }
  flag(column: string): boolean | undefined {
    const value = this.optionalNumber(column);
    return value === undefined ? undefined : value !== 0;
  }
  scalar(column: string): string | number | undefined {
    const value = this.row[column];
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') throw this.bad(column);
    return value;
  }
  json(column: string): unknown {
    const text = this.optionalText(column);
    return text === undefined ? undefined : parseJson(text);
  }
  jobType(): 'normal' | 'single' {
    const value = this.text('type');
    if (value !== 'normal' && value !== 'single') throw this.bad('type');
    return value;
  }
  record(column: string): Record<string, unknown> | undefined {
    const value = this.json(column);
    if (value === undefined) return undefined;
    if (!isRecord(value)) throw this.bad(column);
    return value;
  }
  days(column: string): number[] | undefined {
    const value = this.json(column);
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((d): d is number => typeof d === 'number')) throw this.bad(column);
    return value;
  }
}

/** The same shape as the Mongo repository's computeJobObj: Date objects, absent fields undefined. */
export const decodeJob = (value: unknown): JobParameters => {
  const row = new RowReader(value);
  return {
    _id: toJobId(row.text('id')),
    name: row.text('name'),
    priority: row.number('priority'),
    nextRunAt: row.date('next_run_at') ?? null,
    type: row.jobType(),
    data: row.json('data'),
    lockedAt: row.date('locked_at'),
    lastFinishedAt: row.date('last_finished_at'),
    failedAt: row.date('failed_at'),
    failCount: row.optionalNumber('fail_count'),
    failReason: row.optionalText('fail_reason'),
    repeatTimezone: row.optionalText('repeat_timezone'),
    lastRunAt: row.date('last_run_at'),
    repeatInterval: row.scalar('repeat_interval'),
    repeatAt: row.optionalText('repeat_at'),
    disabled: row.flag('disabled'),
    progress: row.optionalNumber('progress'),
    unique: row.record('unique_query'),
    // Written by encodeJob from a UniqueOpts, so its shape is ours; only the object-ness is checked.
    uniqueOpts: row.record('unique_opts') as UniqueOpts | undefined,
    lastModifiedBy: row.optionalText('last_modified_by'),
    fork: row.flag('fork'),
    debounceStartedAt: row.date('debounce_started_at'),
    startDate: row.date('start_date'),
    endDate: row.date('end_date'),
    skipDays: row.days('skip_days'),
  };
};
