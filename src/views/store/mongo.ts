import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { comparePositions, type RecordedEvent } from '../../log/event-log.ts';
import { LeaseLostError, type Leases, type ProjectionStore } from './port.ts';

/** Documents of the read models are keyed by strings (event, project, key and user ids). */
export type Keyed = Document & { _id: string };

/** Write operations a projection queues during a batch, per collection, in order, and tasks
 *  that need to read before they write (run after the bulk writes, in order). */
export class BulkOps {
  readonly byCollection = new Map<string, AnyBulkWriteOperation<Keyed>[]>();
  readonly deferred: Array<(db: Db) => Promise<void>> = [];
  add(collection: string, op: AnyBulkWriteOperation<Keyed>): void {
    const ops = this.byCollection.get(collection);
    if (ops) ops.push(op);
    else this.byCollection.set(collection, [op]);
  }
  defer(task: (db: Db) => Promise<void>): void {
    this.deferred.push(task);
  }
}

export interface MongoSchema {
  /** Bumped whenever the documents or indexes change: a read model built by another version is
   *  dropped and rebuilt from the log. */
  version: number;
  collections: readonly string[];
  /** Creates the indexes (idempotent: createIndexes with the same spec is a no-op). */
  ensureIndexes(db: Db): Promise<void>;
}

/** One read model's MongoDB adapter: its collections, how each batch of its projection gets a
 *  writer (`batchWriter` is called once per opened store, so batches may share state), and its
 *  queries. */
export interface MongoReadModel<W, Q> {
  readonly schema: MongoSchema;
  batchWriter(): (ops: BulkOps) => W;
  queries(db: Db): Q;
}

/** One projection's read model in MongoDB. Without multi-document transactions (a standalone
 *  server has none), a batch is made safe to replay instead: every write is idempotent, keyed by
 *  event id or entity id (upserts with $setOnInsert, conditional updates), the writes land in
 *  order, and the checkpoint moves only after them. A crash between the two replays the batch
 *  onto the same result. */
export class MongoProjectionStore<W> implements ProjectionStore<W> {
  private readonly schema: MongoSchema;
  private readonly writerFor: (ops: BulkOps) => W;

  constructor(private readonly db: Db, readonly name: string, model: Pick<MongoReadModel<W, unknown>, 'schema' | 'batchWriter'>) {
    this.schema = model.schema;
    this.writerFor = model.batchWriter();
  }

  /** Creates the indexes; drops the read model first (so the projector replays the log) when it
   *  was built by another version of the schema. */
  async migrate(): Promise<void> {
    const versions = this.db.collection<{ _id: string; version: number }>('read_model_versions');
    const built = await versions.findOne({ _id: this.name });
    if (built && built.version !== this.schema.version) await this.reset();
    else await this.schema.ensureIndexes(this.db);
    await versions.updateOne({ _id: this.name }, { $set: { version: this.schema.version } }, { upsert: true });
  }

  async checkpoint(): Promise<string | null> {
    const doc = await this.db.collection<{ _id: string; position: string }>('checkpoints').findOne({ _id: this.name });
    return doc?.position ?? null;
  }

  async commit(events: readonly RecordedEvent[], apply: (event: RecordedEvent, writer: W) => void, leaseHolder?: string): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    const ops = new BulkOps();
    const writer = this.writerFor(ops);
    // Events at or before the checkpoint were applied already; the writes themselves are also
    // idempotent, for a crash between them and the checkpoint.
    const done = await this.checkpoint();
    const fresh = events.filter((e) => comparePositions(e.position, done) > 0);
    if (fresh.length === 0) return;
    for (const e of fresh) apply(e, writer);
    if (leaseHolder !== undefined) {
      const lease = await this.db.collection<{ _id: string; holder: string; expires_at: number }>('leases')
        .findOne({ _id: this.name, holder: leaseHolder, expires_at: { $gte: Date.now() } });
      if (!lease) throw new LeaseLostError(this.name, leaseHolder);
    }
    for (const [collection, list] of ops.byCollection) {
      await this.db.collection<Keyed>(collection).bulkWrite(list, { ordered: true });
    }
    for (const task of ops.deferred) await task(this.db);
    await this.db.collection<{ _id: string; position: string }>('checkpoints')
      .updateOne({ _id: this.name }, { $set: { position: last.position } }, { upsert: true });
  }

  async reset(): Promise<void> {
    for (const collection of this.schema.collections) await this.db.collection(collection).drop().catch(() => undefined);
    await this.schema.ensureIndexes(this.db);
    await this.db.collection<{ _id: string }>('checkpoints').deleteOne({ _id: this.name });
  }
}

interface LeaseDoc { _id: string; holder: string; expires_at: number }

/** Leases as documents: an upsert that matches only a free, expired or own lease. When another
 *  live holder has it, the upsert collides on _id (E11000) and the answer is false. Holders may
 *  run on other machines, so a dead holder's lease is taken over only when it expires
 *  (WATCHLOG_PROJECTION_LEASE_MS). */
export class MongoLeases implements Leases {
  constructor(private readonly db: Db) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    try {
      await this.db.collection<LeaseDoc>('leases').updateOne(
        { _id: name, $or: [{ holder }, { expires_at: { $lt: now } }] },
        { $set: { holder, expires_at: now + ttlMs } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      if ((error as { code?: number }).code === 11000) return false;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.collection<LeaseDoc>('leases').deleteOne({ _id: name, holder });
  }

  async releaseAll(holder: string): Promise<void> {
    await this.db.collection<LeaseDoc>('leases').deleteMany({ holder });
  }

  async holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null> {
    const doc = await this.db.collection<LeaseDoc>('leases').findOne({ _id: name });
    return doc ? { holder: doc.holder, expiresAt: doc.expires_at } : null;
  }
}

/** The filter on `field` for the projects a query may read, from projectsInScope (null: any). */
export const inProjects = (projects: readonly string[] | null, field = 'project_id'): Document =>
  (projects === null ? {} : projects.length === 1 ? { [field]: projects[0] } : { [field]: { $in: [...projects] } });
