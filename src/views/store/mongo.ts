import {
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type Filter,
} from 'mongodb';
import { projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import { comparePositions, type RecordedEvent } from '../../log/event-log.ts';
import { LeaseLostError, type Lease, type Leases, type ProjectionStore, type StoreFaults } from './port.ts';

/** Documents of the read models are keyed by strings (event, project, key and user ids). */
export type Keyed = Document & { _id: string };

/** How a holder's writes are fenced: every document a projection changes carries the token of
 *  the lease its last writer held (`_fence`), and a change applies only where no later holder
 *  has written. A former holder that paused past its lease and resumes in the middle of a batch
 *  cannot put back older values over a newer holder's. Inserts (and upserts that only insert)
 *  are not fenced: such a document never changes, and the same events give the same document
 *  whoever writes it. The checkpoint write is fenced too, so the former holder stops at the end
 *  of that batch. Read-modify-write counters are guarded by log position instead (see
 *  mongo-counters.ts). */
export interface Fence {
  /** `filter`, narrowed to the documents no later holder has written. */
  filter<F extends Document>(filter: F): F;
  /** `update` (operators) that also stamps the document with this holder's token. */
  update<U extends Document>(update: U): U;
}

const FENCE_FIELD = '_fence';
const GONE_FIELD = '_gone';

/** Removing a document that a projection inserts is a tombstone (a fenced update), not a delete:
 *  a former holder's late insert of the same document then finds it there and changes nothing,
 *  where after a delete it would bring it back. Queries read `live` documents only. */
export const TOMBSTONE = { $set: { [GONE_FIELD]: true } } as const;
export const live = <F extends Document>(filter: F): F => ({ ...filter, [GONE_FIELD]: { $ne: true } });
/** `$set` fields that bring back a document removed earlier (one a later write makes again). */
export const ALIVE = { [GONE_FIELD]: false } as const;

/** A document as queries hand it out: without the fencing stamp and the tombstone mark. */
export const unfenced = <D extends Document>({
  [FENCE_FIELD]: _,
  [GONE_FIELD]: __,
  ...rest
}: D): Omit<D, typeof FENCE_FIELD | typeof GONE_FIELD> => rest;

/** No lease (tests, one-off tools): nothing to fence against. */
export const NO_FENCE: Fence = { filter: (f) => f, update: (u) => u };

const fenceOf = (token: number): Fence => ({
  filter: (f) => ({ ...f, [FENCE_FIELD]: { $not: { $gt: token } } }),
  update: (u) => ({ ...u, $set: { ...(u.$set as Document | undefined), [FENCE_FIELD]: token } }),
});

/** Only `$setOnInsert`: the document never changes once written, so there is nothing to fence. */
const insertOnly = (update: Document): boolean => Object.keys(update).every((k) => k === '$setOnInsert');

/** One queued operation, fenced. */
const fenceOp = (op: AnyBulkWriteOperation<Keyed>, fence: Fence): AnyBulkWriteOperation<Keyed> => {
  if ('insertOne' in op) return op;
  if ('replaceOne' in op) {
    return {
      replaceOne: {
        ...op.replaceOne,
        filter: fence.filter(op.replaceOne.filter),
        replacement: fence.update({ $set: op.replaceOne.replacement }).$set,
      },
    };
  }
  if ('deleteOne' in op) return { deleteOne: { ...op.deleteOne, filter: fence.filter(op.deleteOne.filter) } };
  if ('deleteMany' in op) return { deleteMany: { ...op.deleteMany, filter: fence.filter(op.deleteMany.filter) } };
  const [kind, model] =
    'updateOne' in op ? (['updateOne', op.updateOne] as const) : (['updateMany', op.updateMany] as const);
  if (Array.isArray(model.update)) throw new Error('pipeline updates are not fenced; queue operator updates');
  if (insertOnly(model.update)) return op;
  const fenced = { ...model, filter: fence.filter(model.filter), update: fence.update(model.update) };
  return kind === 'updateOne' ? { updateOne: fenced } : { updateMany: fenced };
};

const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === 11000;

/** Write operations a projection queues during a batch, per collection, in order, and tasks
 *  that need to read before they write (run after the bulk writes, in order). A task writes
 *  through the batch's `Fence`. */
export class BulkOps {
  readonly byCollection = new Map<string, AnyBulkWriteOperation<Keyed>[]>();
  readonly deferred: Array<(db: Db, fence: Fence) => Promise<void>> = [];
  add(collection: string, op: AnyBulkWriteOperation<Keyed>): void {
    const ops = this.byCollection.get(collection);
    if (ops) ops.push(op);
    else this.byCollection.set(collection, [op]);
  }
  defer(task: (db: Db, fence: Fence) => Promise<void>): void {
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

interface CheckpointDoc {
  _id: string;
  position: string | null;
  token?: number;
}
interface VersionDoc {
  _id: string;
  version: number;
}
interface LeaseDoc {
  _id: string;
  holder: string;
  expires_at: number;
  token: number;
}

/** One projection's read model in MongoDB. Without multi-document transactions (a standalone
 *  server has none), a batch is made safe to replay instead: every write is idempotent, keyed by
 *  event id or entity id (upserts with $setOnInsert, conditional updates), the writes land in
 *  order, and the checkpoint moves only after them. A crash between the two replays the batch
 *  onto the same result. With a lease, the writes and the checkpoint are fenced by its token
 *  (see Fence). */
export class MongoProjectionStore<W> implements ProjectionStore<W> {
  private readonly schema: MongoSchema;
  private readonly writerFor: (ops: BulkOps) => W;

  constructor(
    private readonly db: Db,
    readonly name: string,
    model: Pick<MongoReadModel<W, unknown>, 'schema' | 'batchWriter'>,
    private readonly faults: StoreFaults = {},
  ) {
    this.schema = model.schema;
    this.writerFor = model.batchWriter();
  }

  private get checkpoints() {
    return this.db.collection<CheckpointDoc>('checkpoints');
  }

  private async builtVersion(): Promise<number | null> {
    return (await this.db.collection<VersionDoc>('read_model_versions').findOne({ _id: this.name }))?.version ?? null;
  }

  private async recordVersion(): Promise<void> {
    await this.db
      .collection<VersionDoc>('read_model_versions')
      .updateOne({ _id: this.name }, { $set: { version: this.schema.version } }, { upsert: true });
  }

  /** Creates this version's indexes where nothing else was built; a read model of another
   *  version is left alone until its lease is held (migrate). Any process may call it. */
  async open(): Promise<void> {
    if (!(await this.schemaCurrent())) return;
    await this.schema.ensureIndexes(this.db);
    await this.recordVersion();
  }

  async schemaCurrent(): Promise<boolean> {
    const built = await this.builtVersion();
    return built === null || built === this.schema.version;
  }

  async migrate(lease: Lease): Promise<void> {
    await this.checkLease(lease);
    if (await this.schemaCurrent()) await this.schema.ensureIndexes(this.db);
    else await this.reset(lease);
    await this.recordVersion();
  }

  async checkpoint(): Promise<string | null> {
    return (await this.checkpoints.findOne({ _id: this.name }))?.position ?? null;
  }

  private async checkLease(lease: Lease): Promise<void> {
    const held = await this.db
      .collection<LeaseDoc>('leases')
      .findOne({ _id: this.name, holder: lease.holder, token: lease.token });
    if (!held) throw new LeaseLostError(this.name, lease.holder);
  }

  /** Runs `work`; a duplicate key it met because a later holder wrote first is the lease lost. */
  private async fenced(lease: Lease | undefined, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (lease !== undefined && isDuplicateKey(error)) {
        await this.checkLease(lease);
      }
      throw error;
    }
  }

  /** Moves the checkpoint, unless a later holder has: the filter then matches nothing, the
   *  upsert collides with the existing document, and the holder learns it lost the lease. */
  private async writeCheckpoint(position: string | null, lease: Lease | undefined): Promise<void> {
    const filter = lease === undefined ? { _id: this.name } : { _id: this.name, token: { $not: { $gt: lease.token } } };
    const set = lease === undefined ? { position } : { position, token: lease.token };
    await this.fenced(lease, async () => {
      await this.checkpoints.updateOne(filter, { $set: set }, { upsert: true });
    });
  }

  async commit(
    events: readonly RecordedEvent[],
    apply: (event: RecordedEvent, writer: W) => void,
    lease?: Lease,
  ): Promise<void> {
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
    // Cheap early refusal; the fence below is what holds if the lease changes hands meanwhile.
    if (lease !== undefined) await this.checkLease(lease);
    await this.faults.beforeWrites?.(this.name);
    const fence = lease === undefined ? NO_FENCE : fenceOf(lease.token);
    await this.fenced(lease, async () => {
      for (const [collection, list] of ops.byCollection) {
        await this.db.collection<Keyed>(collection).bulkWrite(
          list.map((op) => fenceOp(op, fence)),
          { ordered: true },
        );
      }
      for (const task of ops.deferred) await task(this.db, fence);
    });
    await this.writeCheckpoint(last.position, lease);
  }

  /** The checkpoint document is kept (position null) rather than deleted, so that its token
   *  still fences a former holder. */
  async reset(lease?: Lease): Promise<void> {
    if (lease !== undefined) await this.checkLease(lease);
    for (const collection of this.schema.collections)
      await this.db
        .collection(collection)
        .drop()
        .catch(() => undefined);
    await this.schema.ensureIndexes(this.db);
    await this.writeCheckpoint(null, lease);
  }
}

/** Leases as documents: an update that matches only a free, expired or own lease, upserted the
 *  first time. When another live holder has it, the upsert collides on _id (E11000) and the
 *  answer is null. The token is raised in the same update whenever the holder changes; a
 *  released lease keeps its document (holder ''), so tokens only grow. Holders may run on other
 *  machines, so a dead holder's lease is taken over only when it expires
 *  (WATCHLOG_PROJECTION_LEASE_MS). */
export class MongoLeases implements Leases {
  constructor(private readonly db: Db) {}

  private get leases() {
    return this.db.collection<LeaseDoc>('leases');
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const now = Date.now();
    try {
      const doc = await this.leases.findOneAndUpdate(
        { _id: name, $or: [{ holder }, { expires_at: { $lt: now } }] },
        [
          {
            $set: {
              token: {
                $cond: [
                  { $eq: ['$holder', { $literal: holder }] },
                  '$token',
                  { $add: [{ $ifNull: ['$token', 0] }, 1] },
                ],
              },
              holder: { $literal: holder },
              expires_at: { $literal: now + ttlMs },
            },
          },
        ],
        { upsert: true, returnDocument: 'after' },
      );
      return doc === null ? null : { holder, token: doc.token };
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.leases.updateOne({ _id: name, holder }, { $set: { holder: '', expires_at: 0 } });
  }

  async releaseAll(holder: string): Promise<void> {
    await this.leases.updateMany({ holder }, { $set: { holder: '', expires_at: 0 } });
  }

  async holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null> {
    const doc = await this.leases.findOne({ _id: name });
    return doc && doc.holder !== '' ? { holder: doc.holder, expiresAt: doc.expires_at } : null;
  }
}

/** The filter on `field` for the projects a query may read, from projectsInScope (null: any). */
export const inProjects = (projects: readonly string[] | null, field = 'project_id'): Document =>
  projects === null ? {} : projects.length === 1 ? { [field]: projects[0] } : { [field]: { $in: [...projects] } };

/** The live documents of the projects a scope sees (of `projectId` alone when given), oldest
 *  first: a read model's `list`. */
export async function listInScope<D extends Keyed & { created_at: string }>(
  collection: Collection<D>,
  scope: Scope,
  projectId: string | undefined,
): Promise<D[]> {
  const projects = projectsInScope(scope, projectId);
  if (seesNothing(projects)) return [];
  const filter = live(inProjects(projects)) as Filter<D>;
  return (await collection.find(filter).sort({ created_at: 1, _id: 1 }).toArray()) as D[];
}
