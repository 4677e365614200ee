import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { computeJobState, toJobId } from 'agenda';
import type {
  JobId,
  JobParameters,
  JobRepository,
  JobRepositoryOptions,
  JobsOverview,
  JobsQueryOptions,
  JobsResult,
  JobWithState,
  RemoveJobsOptions,
  UniqueOpts,
} from 'agenda';
import { SqliteConnection } from './connection.ts';
import {
  type Column,
  COLUMNS,
  decodeJob,
  encodeJob,
  epoch,
  type JobColumns,
  optionalFlag,
  optionalNumber,
  optionalText,
  RowReader,
  repeatIntervalValue,
  type SqlValue,
} from './job-row.ts';
import {
  dataConditions,
  fieldCondition,
  orderBy,
  selectionConditions,
  sqlString,
  strings,
  whereClause,
} from './query.ts';
import { uniqueDataIndex } from './schema.ts';

/** The fields of a job that say when it runs and whether it may, as opposed to who is running it
 *  (lockedAt) and how its runs went; an absent field is left as stored (a null nextRunAt: not
 *  scheduled, a one-time job that ran). watchlog's job store port names it JobScheduleChanges. */
export type ScheduleFields = Partial<Pick<JobParameters, 'repeatInterval' | 'nextRunAt' | 'disabled'>>;

const setList = (columns: readonly Column[]) => columns.map((c) => `${c} = @${c}`).join(', ');
const INSERT = `INSERT INTO agenda_jobs (id, ${COLUMNS.join(', ')})
  VALUES (@id, ${COLUMNS.map((c) => `@${c}`).join(', ')}) RETURNING *`;
// Keyed on the name as well, like Mongo's {_id, name}: a job object never renames another job's row.
const UPDATE_BY_ID = `UPDATE agenda_jobs SET ${setList(COLUMNS)} WHERE id = @id AND name = @name RETURNING *`;
// A 'single' job saved with a nextRunAt already past must not move the stored schedule
// (Mongo's $setOnInsert): every process calling every() at start-up would otherwise rerun it.
const UPDATE_KEEPING_NEXT_RUN = `UPDATE agenda_jobs SET ${setList(COLUMNS.filter((c) => c !== 'next_run_at'))}
  WHERE id = @id AND name = @name RETURNING *`;
const FIND_SINGLE = "SELECT * FROM agenda_jobs WHERE name = ? AND type = 'single' ORDER BY rowid LIMIT 1";
// Agenda's default order: the most overdue first, then the highest priority.
const NEXT_JOB_ORDER = 'ORDER BY next_run_at ASC, priority DESC, rowid ASC';
// A due unlocked job or one whose lock expired: two disjoint sets, each the head of its own
// partial index (schema.ts), so finding one costs the same with ten jobs or a hundred thousand.
// As one OR, SQLite would read and sort every job of the name on each call, and Agenda calls it
// once per job it locks.
const GET_NEXT_JOB = `UPDATE agenda_jobs SET locked_at = @lockTime, last_modified_by = @lastModifiedBy
  WHERE id = (
    SELECT id FROM (
      SELECT * FROM (SELECT id, next_run_at, priority, rowid AS seq FROM agenda_jobs
        WHERE name = @name AND locked_at IS NULL AND disabled IS NOT 1 AND next_run_at <= @nextScanAt
        ${NEXT_JOB_ORDER} LIMIT 1)
      UNION ALL
      SELECT * FROM (SELECT id, next_run_at, priority, rowid AS seq FROM agenda_jobs
        WHERE name = @name AND locked_at <= @lockDeadline AND disabled IS NOT 1
        ${NEXT_JOB_ORDER} LIMIT 1))
    ORDER BY next_run_at ASC, priority DESC, seq ASC LIMIT 1)
  RETURNING *`;
const LOCK_JOB = `UPDATE agenda_jobs SET locked_at = @lockTime, last_modified_by = @lastModifiedBy
  WHERE id = @id AND name = @name AND locked_at IS NULL AND next_run_at IS @nextRunAt AND disabled IS NOT 1
  RETURNING *`;
const SAVE_JOB_STATE = `UPDATE agenda_jobs SET locked_at = @locked_at, next_run_at = @next_run_at,
  last_run_at = @last_run_at, progress = @progress, fail_reason = @fail_reason, fail_count = @fail_count,
  failed_at = @failed_at, last_finished_at = @last_finished_at, last_modified_by = @last_modified_by
  WHERE id = @id AND name = @name`;
// A job whose nextRunAt is null is being run once and must stay locked until it finishes.
const UNLOCK_JOB = 'UPDATE agenda_jobs SET locked_at = NULL WHERE id = ? AND next_run_at IS NOT NULL';
const UNLOCK_JOBS = 'UPDATE agenda_jobs SET locked_at = NULL WHERE id IN (SELECT value FROM json_each(?))';

const count = (value: unknown): number => {
  const row = new RowReader(value);
  return row.number('n');
};

const nonNegativeInteger = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0;

/** Agenda's job storage in one SQLite table, with the semantics of the official MongoDB repository. */
export class SqliteJobRepository implements JobRepository {
  /** True when the repository opened the file itself, and so closes it on disconnect. */
  readonly ownsConnection: boolean;
  private readonly sqlite: SqliteConnection;

  constructor(source: string | Database.Database) {
    this.sqlite = new SqliteConnection(source);
    this.ownsConnection = this.sqlite.ownsConnection;
  }

  connect(): Promise<void> {
    return this.sqlite.connect();
  }

  disconnect(): Promise<void> {
    return this.sqlite.disconnect();
  }

  /**
   * Makes a second `name` job with the same `data.<dataPath>` value impossible, whoever writes it:
   * another process, or a plain insert without `unique()`. Fails when duplicates already exist.
   */
  async ensureUniqueIndex(name: string, dataPath: string): Promise<void> {
    const ddl = uniqueDataIndex(name, dataPath);
    const db = this.sqlite.connection();
    this.sqlite.write(() => db.exec(ddl));
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    const row = this.sqlite.statement('SELECT * FROM agenda_jobs WHERE id = ?').get(String(id));
    return row === undefined ? null : decodeJob(row);
  }

  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { name, names, state, id, ids, search, data, includeDisabled = true, sort } = options;
    const skip = nonNegativeInteger(options.skip);
    const limit = nonNegativeInteger(options.limit);
    const now = new Date();
    const args: SqlValue[] = [];
    const conditions: string[] = [];
    const validNames = strings(names);
    // A search replaces the name filter, as in the Mongo repository.
    if (search && typeof search === 'string') {
      conditions.push('instr(lower(name), lower(?)) > 0');
      args.push(search);
    } else if (name && typeof name === 'string') {
      conditions.push('name = ?');
      args.push(name);
    } else if (validNames.length > 0) {
      conditions.push('name IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(validNames));
    }
    const validIds = strings(ids);
    if (id && typeof id === 'string') {
      conditions.push('id = ?');
      args.push(id);
    } else if (validIds.length > 0) {
      conditions.push('id IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(validIds));
    }
    if (data !== undefined) conditions.push(...dataConditions(data, args));
    if (!includeDisabled) conditions.push('disabled IS NOT 1');
    const where = whereClause(conditions);
    const select = `SELECT * FROM agenda_jobs ${where} ${orderBy(sort)}`;
    const withState = (row: unknown): JobWithState => {
      const job = decodeJob(row);
      return { ...job, _id: toJobId(String(job._id)), state: computeJobState(job, now) };
    };
    // One read transaction, so that the page and the total come from the same snapshot.
    return this.sqlite.read(() => {
      if (!state) {
        const page = this.sqlite.statement(`${select} LIMIT ? OFFSET ?`).all(...args, limit > 0 ? limit : -1, skip);
        const total = count(this.sqlite.statement(`SELECT count(*) AS n FROM agenda_jobs ${where}`).get(...args));
        return { jobs: page.map(withState), total };
      }
      // The state is computed from several fields against the clock, so it is filtered here.
      const matching = this.sqlite
        .statement(select)
        .all(...args)
        .map(withState)
        .filter((job) => (state === 'paused' ? job.disabled === true : job.state === state));
      const jobs = limit > 0 ? matching.slice(skip, skip + limit) : matching.slice(skip);
      return { jobs, total: matching.length };
    });
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date();
    const overviews = new Map<string, JobsOverview>();
    for (const row of this.sqlite.statement('SELECT * FROM agenda_jobs ORDER BY name').all()) {
      const job = decodeJob(row);
      let overview = overviews.get(job.name);
      if (overview === undefined) {
        overview = {
          name: job.name,
          total: 0,
          running: 0,
          scheduled: 0,
          queued: 0,
          completed: 0,
          failed: 0,
          repeating: 0,
          paused: 0,
        };
        overviews.set(job.name, overview);
      }
      overview.total++;
      overview[computeJobState(job, now)]++;
      // Paused is on top of the state computed from the timestamps, as in the Mongo repository.
      if (job.disabled === true) overview.paused++;
    }
    return [...overviews.values()];
  }

  async getDistinctJobNames(): Promise<string[]> {
    return this.sqlite
      .statement('SELECT DISTINCT name FROM agenda_jobs ORDER BY name')
      .all()
      .map((row) => new RowReader(row).text('name'));
  }

  async getQueueSize(): Promise<number> {
    return count(this.sqlite.statement('SELECT count(*) AS n FROM agenda_jobs WHERE next_run_at < ?').get(Date.now()));
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    const args: SqlValue[] = [];
    const conditions = selectionConditions(options, args);
    // No criterion means "nothing", never "everything": purgeAllJobs is the explicit way.
    if (conditions.length === 0) return 0;
    const sql = `DELETE FROM agenda_jobs ${whereClause(conditions)}`;
    return this.sqlite.write(() => this.sqlite.statement(sql).run(...args).changes);
  }

  /** Counts only the jobs it changed, like Mongo's modifiedCount. */
  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.setDisabled(options, 1);
  }

  /** Counts the jobs whose flag changed, including never-disabled ones (null becomes false), like
   *  Mongo's modifiedCount. */
  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    return this.setDisabled(options, 0);
  }

  async purgeAllJobs(): Promise<number> {
    return this.sqlite.write(() => this.sqlite.statement('DELETE FROM agenda_jobs').run().changes);
  }

  async saveJob<DATA = unknown>(
    job: JobParameters<DATA>,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters<DATA>> {
    const { _id, unique, uniqueOpts } = job;
    const columns = encodeJob(job, options?.lastModifiedBy ?? null);
    const now = Date.now();
    const saved = this.sqlite.write((): unknown => {
      if (_id) return this.sqlite.statement(UPDATE_BY_ID).get({ ...columns, id: String(_id) });
      if (job.type === 'single') {
        // Under the write lock nobody inserts between this find and the insert, so two workers
        // calling every() at once both end up with the one row; the unique index is the backstop.
        const existing = this.sqlite.statement(FIND_SINGLE).get(job.name);
        if (existing === undefined) return this.insert(columns);
        const nextRunAt = epoch(job.nextRunAt, 'nextRunAt');
        const overdue = nextRunAt !== null && nextRunAt <= now;
        return this.sqlite.statement(overdue ? UPDATE_KEEPING_NEXT_RUN : UPDATE_BY_ID).get({
          ...columns,
          id: new RowReader(existing).text('id'),
        });
      }
      if (unique) return this.upsertUnique(job.name, unique, uniqueOpts, columns, now);
      return this.insert(columns);
    });
    // A job saved by id that was removed meanwhile: Mongo hands the caller's job back unchanged.
    if (saved === undefined) return job;
    // The data is the caller's own DATA, stored as JSON and parsed back.
    return decodeJob(saved) as JobParameters<DATA>;
  }

  /**
   * Changes when a job runs and whether it may, and nothing else: the lock (lockedAt,
   * lastModifiedBy) and the run history stay as the worker running it left them. saveJob writes
   * every column, lockedAt included, so re-saving a running job would let a second worker take it.
   * False when no job has that id.
   */
  async updateSchedule(id: JobId | string, changes: ScheduleFields): Promise<boolean> {
    const assignments: string[] = [];
    const params: Record<string, SqlValue> = { id: String(id) };
    if (changes.repeatInterval !== undefined) {
      assignments.push('repeat_interval = @repeat_interval');
      params.repeat_interval = repeatIntervalValue(changes.repeatInterval);
    }
    if (changes.nextRunAt !== undefined) {
      assignments.push('next_run_at = @next_run_at');
      params.next_run_at = epoch(changes.nextRunAt, 'nextRunAt');
    }
    if (changes.disabled !== undefined) {
      assignments.push('disabled = @disabled');
      params.disabled = optionalFlag(changes.disabled, 'disabled');
    }
    // SQLite counts the rows an UPDATE matched, so `id = id` answers "does it exist" when nothing changes.
    const sql = `UPDATE agenda_jobs SET ${assignments.length > 0 ? assignments.join(', ') : 'id = id'} WHERE id = @id`;
    return this.sqlite.write(() => this.sqlite.statement(sql).run(params).changes) === 1;
  }

  async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    if (!job._id) throw new Error('Cannot save job state without job ID');
    const changes = this.sqlite.write(
      () =>
        this.sqlite.statement(SAVE_JOB_STATE).run({
          id: String(job._id),
          name: job.name,
          locked_at: epoch(job.lockedAt, 'lockedAt'),
          next_run_at: epoch(job.nextRunAt, 'nextRunAt'),
          last_run_at: epoch(job.lastRunAt, 'lastRunAt'),
          progress: optionalNumber(job.progress, 'progress'),
          fail_reason: optionalText(job.failReason, 'failReason'),
          fail_count: optionalNumber(job.failCount, 'failCount'),
          failed_at: epoch(job.failedAt, 'failedAt'),
          last_finished_at: epoch(job.lastFinishedAt, 'lastFinishedAt'),
          last_modified_by: options?.lastModifiedBy ?? null,
        }).changes,
    );
    if (changes !== 1) {
      throw new Error(
        `job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`,
      );
    }
  }

  async lockJob(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const row = this.sqlite.write(() =>
      this.sqlite.statement(LOCK_JOB).get({
        id: String(job._id),
        name: job.name,
        nextRunAt: epoch(job.nextRunAt, 'nextRunAt'),
        lockTime: Date.now(),
        lastModifiedBy: options?.lastModifiedBy ?? null,
      }),
    );
    return row === undefined ? undefined : decodeJob(row);
  }

  async unlockJob(job: JobParameters): Promise<void> {
    if (!job._id) return;
    const id = String(job._id);
    this.sqlite.write(() => this.sqlite.statement(UNLOCK_JOB).run(id));
  }

  /** Regardless of nextRunAt: Agenda calls this on stop() for jobs it locked but never started. */
  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    if (jobIds.length === 0) return;
    const ids = JSON.stringify(jobIds.map(String));
    this.sqlite.write(() => this.sqlite.statement(UNLOCK_JOBS).run(ids));
  }

  /** Finds and locks in one UPDATE under the write lock, so two workers never get the same job:
   *  a due unlocked job, or one whose lock is older than lockDeadline (its worker died). */
  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    const params = {
      name: jobName,
      nextScanAt: epoch(nextScanAt, 'nextScanAt'),
      lockDeadline: epoch(lockDeadline, 'lockDeadline'),
      lockTime: epoch(now ?? new Date(), 'now'),
      lastModifiedBy: options?.lastModifiedBy ?? null,
    };
    const row = this.sqlite.write(() => this.sqlite.statement(GET_NEXT_JOB).get(params));
    return row === undefined ? undefined : decodeJob(row);
  }

  private upsertUnique(
    name: string,
    unique: Record<string, unknown>,
    uniqueOpts: UniqueOpts | undefined,
    columns: JobColumns,
    now: number,
  ): unknown {
    const args: SqlValue[] = [];
    // The name is inlined (quoted) rather than bound: only a literal lets SQLite use a partial
    // index from ensureUniqueIndex, whose WHERE names the job.
    const conditions = [`name = ${sqlString(name)}`];
    for (const [key, value] of Object.entries(unique)) {
      // The job's own name wins over a name in the unique object, as in the Mongo repository.
      if (key !== 'name') conditions.push(fieldCondition(key, value, args));
    }
    const found = this.sqlite
      .statement(`SELECT * FROM agenda_jobs WHERE ${conditions.join(' AND ')} ORDER BY rowid LIMIT 1`)
      .get(...args);
    const existing = found === undefined ? undefined : decodeJob(found);
    const debounce = uniqueOpts?.debounce;
    if (debounce) {
      if (existing === undefined) {
        const trailing = debounce.strategy !== 'leading';
        return this.insert({
          ...columns,
          // Trailing waits for a quiet period; leading runs as scheduled and opens the window.
          next_run_at: trailing ? now + debounce.delay : columns.next_run_at,
          debounce_started_at: now,
        });
      }
      const startedAt = existing.debounceStartedAt?.getTime() ?? now;
      let nextRunAt: number | null;
      let debounceStartedAt: number | null = startedAt;
      if (debounce.strategy === 'leading') {
        nextRunAt = epoch(existing.nextRunAt, 'nextRunAt');
      } else if (debounce.maxWait && now - startedAt >= debounce.maxWait) {
        // Saves kept coming for maxWait: run now, and the next save opens a new window.
        nextRunAt = now;
        debounceStartedAt = null;
      } else {
        nextRunAt = now + debounce.delay;
      }
      return this.sqlite.statement(UPDATE_BY_ID).get({
        ...columns,
        id: String(existing._id),
        next_run_at: nextRunAt,
        debounce_started_at: debounceStartedAt,
      });
    }
    if (existing === undefined) return this.insert(columns);
    if (uniqueOpts?.insertOnly) return found;
    return this.sqlite.statement(UPDATE_BY_ID).get({ ...columns, id: String(existing._id) });
  }

  private insert(columns: JobColumns): unknown {
    return this.sqlite.statement(INSERT).get({ ...columns, id: randomUUID() });
  }

  private async setDisabled(options: RemoveJobsOptions, disabled: 0 | 1): Promise<number> {
    const args: SqlValue[] = [];
    const conditions = selectionConditions(options, args);
    if (conditions.length === 0) return 0;
    conditions.push(`disabled IS NOT ${disabled}`);
    const sql = `UPDATE agenda_jobs SET disabled = ${disabled} ${whereClause(conditions)}`;
    return this.sqlite.write(() => this.sqlite.statement(sql).run(...args).changes);
  }
}
