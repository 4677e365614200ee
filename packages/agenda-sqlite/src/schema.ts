import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { IDENTIFIER, sqlString } from './query.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS agenda_jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0,
  next_run_at INTEGER,
  type TEXT NOT NULL,
  locked_at INTEGER,
  last_finished_at INTEGER,
  failed_at INTEGER,
  fail_count INTEGER,
  fail_reason TEXT,
  repeat_timezone TEXT,
  last_run_at INTEGER,
  -- No declared type, hence no affinity: 5000 stays a number and '5000' or '5 minutes' stay text,
  -- which Agenda's interval parsing tells apart.
  repeat_interval,
  data TEXT,
  repeat_at TEXT,
  disabled INTEGER,
  progress REAL,
  unique_query TEXT,
  unique_opts TEXT,
  debounce_started_at INTEGER,
  last_modified_by TEXT,
  fork INTEGER,
  start_date INTEGER,
  end_date INTEGER,
  skip_days TEXT
);
-- getNextJobToRun's two sets: the due jobs nobody holds, in the order they run, and the held ones
-- by lock time (an expired lock). Partial, so that a job's lock moves it from one to the other.
CREATE INDEX IF NOT EXISTS agenda_jobs_due ON agenda_jobs (name, next_run_at, priority DESC)
  WHERE locked_at IS NULL AND disabled IS NOT 1;
CREATE INDEX IF NOT EXISTS agenda_jobs_locked ON agenda_jobs (name, locked_at) WHERE locked_at IS NOT NULL;
-- Its single range was on the name only (disabled IS NOT 1 is no equality): every lock read and
-- sorted all the jobs of the name. Dropped, as every write kept it up to date for nothing.
DROP INDEX IF EXISTS agenda_jobs_find_and_lock;
CREATE INDEX IF NOT EXISTS agenda_jobs_name_type ON agenda_jobs (name, type);`;

/** One 'single' job per name (Agenda's every()), held by the database whoever writes. */
const SINGLE_JOB_INDEX = 'agenda_jobs_single_name';
const HAS_SINGLE_JOB_INDEX = `SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '${SINGLE_JOB_INDEX}'`;
// Files written before the index may hold duplicates, which would fail its creation. The oldest
// row is the one saveJob kept updating (FIND_SINGLE), so the later copies go.
const REMOVE_DUPLICATE_SINGLE_JOBS = `DELETE FROM agenda_jobs WHERE type = 'single' AND rowid NOT IN (
  SELECT min(rowid) FROM agenda_jobs WHERE type = 'single' GROUP BY name)`;
const CREATE_SINGLE_JOB_INDEX = `CREATE UNIQUE INDEX IF NOT EXISTS ${SINGLE_JOB_INDEX}
  ON agenda_jobs (name) WHERE type = 'single'`;

/** The caller runs it in a write transaction, so that the check for the single-job index and its
 *  creation cannot interleave with another connection's. */
export const createSchema = (db: Database.Database): void => {
  db.exec(SCHEMA);
  if (db.prepare(HAS_SINGLE_JOB_INDEX).get() === undefined) {
    db.exec(REMOVE_DUPLICATE_SINGLE_JOBS);
    db.exec(CREATE_SINGLE_JOB_INDEX);
  }
};

/** The DDL of ensureUniqueIndex. The index is named by a hash of the job name and the path, so the
 *  same pair finds the same index and no character of the name reaches an identifier. */
export const uniqueDataIndex = (name: string, dataPath: string): string => {
  if (!IDENTIFIER.test(dataPath)) throw new Error(`unsupported data path "${dataPath}": a plain field name`);
  // The partial index's WHERE must be a literal; the name is quoted, and control characters,
  // which have no business in a job name, are refused rather than carried into DDL.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  if (typeof name !== 'string' || name.length === 0 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new Error('job name must be a non-empty string without control characters');
  }
  const hash = createHash('sha256').update(`${name}\u0000${dataPath}`).digest('hex');
  const index = `agenda_jobs_unique_${hash.slice(0, 16)}`;
  return `CREATE UNIQUE INDEX IF NOT EXISTS ${index}
      ON agenda_jobs (json_extract(data, '$.${dataPath}')) WHERE name = ${sqlString(name)}`;
};
