import { MongoJobRepository } from '@agendajs/mongo-backend';
import { ObjectId, type Db } from 'mongodb';
import type { AgendaBackend, JobParameters, JobRepositoryOptions } from 'agenda';
import type { JobScheduleChanges, ScheduleUpdates } from '../jobs/worker-jobs.ts';

const SINGLE_JOB_INDEX = 'single_job_name_unique';

/** The index build may meet a duplicate inserted after the clean-up (by a worker of an older
 *  version, or one starting at the same moment before the index exists); clean up and build again. */
const SINGLE_JOB_INDEX_ATTEMPTS = 3;

/** MongoDB's E11000, whichever copy of the driver threw it. */
export const isDuplicateKeyError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 11000;

/** The official repository (the semantics of @agendajs/mongo-backend), with what watchlog adds:
 *  one 'single' job per name held by a unique index, and a schedule change that leaves the lock. */
export class WatchlogMongoJobRepository extends MongoJobRepository {
  /** every() upserts on {name, type: 'single'}: when two workers find nothing at once, both insert
   *  and the unique index refuses the later one. The job exists by then, so the same upsert again
   *  updates it, which is what every() meant. */
  override async saveJob<DATA = unknown>(
    job: JobParameters<DATA>,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters<DATA>> {
    try {
      return await super.saveJob(job, options);
    } catch (error) {
      if (job.type !== 'single' || job._id !== undefined || !isDuplicateKeyError(error)) throw error;
      return super.saveJob(job, options);
    }
  }

  /** Names only the schedule's fields in $set, where saveJob $sets every field (lockedAt: null
   *  among them); the lock and the run history stay the running worker's. */
  async updateSchedule(id: string, changes: JobScheduleChanges): Promise<boolean> {
    if (!ObjectId.isValid(id)) return false;
    const _id = new ObjectId(id);
    const $set: JobScheduleChanges = {};
    if (changes.repeatInterval !== undefined) $set.repeatInterval = changes.repeatInterval;
    if (changes.nextRunAt !== undefined) $set.nextRunAt = changes.nextRunAt;
    if (changes.disabled !== undefined) $set.disabled = changes.disabled;
    // An empty $set is an error before MongoDB 5.0.
    if (Object.keys($set).length === 0) return (await this.collection.countDocuments({ _id }, { limit: 1 })) === 1;
    return (await this.collection.updateOne({ _id }, { $set })).matchedCount === 1;
  }

  async ensureSingleJobIndex(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      await this.removeDuplicateSingleJobs();
      try {
        await this.collection.createIndex(
          { name: 1 },
          { unique: true, partialFilterExpression: { type: 'single' }, name: SINGLE_JOB_INDEX },
        );
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error) || attempt >= SINGLE_JOB_INDEX_ATTEMPTS) throw error;
      }
    }
  }

  /** Before the index two workers could both insert a name's 'single' job; the oldest stays. */
  private async removeDuplicateSingleJobs(): Promise<void> {
    const groups = await this.collection
      .aggregate<{ ids: ObjectId[] }>([
        { $match: { type: 'single' } },
        { $sort: { _id: 1 } },
        { $group: { _id: '$name', ids: { $push: '$_id' } } },
        { $match: { 'ids.1': { $exists: true } } },
      ])
      .toArray();
    const extra = groups.flatMap((group) => group.ids.slice(1));
    if (extra.length > 0) await this.collection.deleteMany({ _id: { $in: extra } });
  }
}

/**
 * Agenda's MongoDB job store as watchlog uses it: @agendajs/mongo-backend's repository on a
 * collection of the caller's database (which the caller closes), with a unique index on the name
 * of 'single' jobs and `updateSchedule`. No job log: watchlog does not turn Agenda's `logging` on.
 */
export class MongoJobStore implements AgendaBackend, ScheduleUpdates {
  readonly name = 'MongoDB';
  readonly notificationChannel = undefined;
  readonly ownsConnection = false;
  readonly repository: WatchlogMongoJobRepository;
  private indexed: Promise<void> | null = null;

  constructor(db: Db, collection: string) {
    this.repository = new WatchlogMongoJobRepository({ mongo: db, db: { collection } });
  }

  /** Agenda connects too, from its constructor, where a failure is not caught: connect first, so a
   *  failure rejects here, and Agenda's connect does not build the index again. */
  async connect(): Promise<void> {
    await this.repository.connect();
    this.indexed ??= this.repository.ensureSingleJobIndex().catch((error: unknown) => {
      this.indexed = null;
      throw error;
    });
    await this.indexed;
  }

  async disconnect(): Promise<void> {
    // nothing to close: the connection is the caller's
  }

  updateSchedule(id: string, changes: JobScheduleChanges): Promise<boolean> {
    return this.repository.updateSchedule(id, changes);
  }
}
