import { MongoBulkWriteError, type BulkWriteResult, type Db, type WriteError } from 'mongodb';

/** A stand-in for the few MongoDB calls a read model's writer and queries make, in memory, for
 *  running them where no server is (this machine has none): find (equality, $in, $lt/$lte/
 *  $gt/$gte, $not, $ne), sort, skip, limit, batchSize, projection, countDocuments, and ordered bulk
 *  writes (insertOne, updateOne with $set/$unset and upsert, deleteOne; a duplicate _id fails
 *  as the driver's MongoBulkWriteError). Anything else throws, so a writer that starts using more
 *  is noticed rather than half-emulated. It can crash after a number of single writes, as a
 *  process killed in the middle of a batch would, or let another writer run there. It says
 *  nothing of what a real server's planner or indexes do. */

type Doc = Record<string, unknown> & { _id: string };
type Filter = Record<string, unknown>;

export class CrashError extends Error {
  constructor() {
    super('crashed');
  }
}

const OPERATORS = new Set(['$in', '$lt', '$lte', '$gt', '$gte', '$not', '$ne']);

const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new Error(`memory-mongo compares numbers or strings only, not ${typeof a} and ${typeof b}`);
};

const matchesCondition = (value: unknown, condition: unknown): boolean => {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return value === condition;
  return Object.entries(condition).every(([op, operand]) => {
    if (!OPERATORS.has(op)) throw new Error(`memory-mongo has no ${op}`);
    if (op === '$not') return !matchesCondition(value, operand);
    if (op === '$ne') return value !== operand;
    if (op === '$in') return (operand as unknown[]).includes(value);
    if (value === undefined) return false;
    const order = compare(value, operand);
    return op === '$lt' ? order < 0 : op === '$lte' ? order <= 0 : op === '$gt' ? order > 0 : order >= 0;
  });
};

const matches = (doc: Doc, filter: Filter): boolean =>
  Object.entries(filter).every(([field, condition]) => {
    if (field.startsWith('$')) throw new Error(`memory-mongo has no top-level ${field}`);
    return matchesCondition(doc[field], condition);
  });

const project = (doc: Doc, projection: Record<string, 0 | 1> | undefined): Record<string, unknown> => {
  if (!projection) return structuredClone(doc);
  const including = Object.entries(projection).some(([field, on]) => field !== '_id' && on === 1);
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(doc)) {
    const listed = projection[field];
    const kept = field === '_id' ? listed !== 0 : including ? listed === 1 : listed !== 0;
    if (kept) out[field] = structuredClone(value);
  }
  return out;
};

/** What the driver throws for a bulk write that met a duplicate key (bulk writes here are
 *  ordered: the one error stops it), with what a reader of it uses: the write errors' codes. The
 *  driver builds these itself and exports no way to, hence the casts. */
const duplicateKey = (index: number, id: string): MongoBulkWriteError =>
  new MongoBulkWriteError(
    {
      message: `E11000 duplicate key error: ${id}`,
      code: 11000,
      writeErrors: [{ index, code: 11000, errmsg: `E11000 ${id}` } as unknown as WriteError],
    },
    {} as BulkWriteResult,
  );

class MemoryCursor {
  private order: Array<[string, 1 | -1]> = [];
  private skipped = 0;
  private limited = 0;
  constructor(
    private readonly docs: () => Doc[],
    private readonly projection: Record<string, 0 | 1> | undefined,
  ) {}
  sort(spec: Record<string, 1 | -1>): this {
    this.order = Object.entries(spec);
    return this;
  }
  skip(n: number): this {
    this.skipped = n;
    return this;
  }
  limit(n: number): this {
    this.limited = n;
    return this;
  }
  batchSize(): this {
    return this;
  }
  private results(): Array<Record<string, unknown>> {
    const sorted = [...this.docs()].sort((a, b) => {
      for (const [field, dir] of this.order) {
        const order = compare(a[field], b[field]);
        if (order !== 0) return order * dir;
      }
      return 0;
    });
    const page = sorted.slice(this.skipped, this.limited > 0 ? this.skipped + this.limited : undefined);
    return page.map((d) => project(d, this.projection));
  }
  async toArray(): Promise<Array<Record<string, unknown>>> {
    return this.results();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Record<string, unknown>> {
    yield* this.results();
  }
}

type WriteOp =
  | { insertOne: { document: Doc } }
  | {
      updateOne: {
        filter: Filter;
        update: { $set?: Record<string, unknown>; $unset?: Record<string, unknown> };
        upsert?: boolean;
      };
    }
  | { deleteOne: { filter: Filter } };

class MemoryCollection {
  constructor(
    private readonly store: Map<string, Doc>,
    private readonly write: () => Promise<void>,
  ) {}

  find(filter: Filter, options: { projection?: Record<string, 0 | 1> } = {}): MemoryCursor {
    return new MemoryCursor(() => [...this.store.values()].filter((d) => matches(d, filter)), options.projection);
  }

  async countDocuments(filter: Filter): Promise<number> {
    return [...this.store.values()].filter((d) => matches(d, filter)).length;
  }

  /** Ordered: stops at the first error, with the writes before it done. */
  async bulkWrite(ops: readonly WriteOp[]): Promise<{ insertedCount: number; matchedCount: number }> {
    if (ops.length === 0) throw new Error('Invalid BulkOperation, Batch cannot be empty');
    let insertedCount = 0;
    let matchedCount = 0;
    for (const [index, op] of ops.entries()) {
      await this.write();
      if ('insertOne' in op) {
        const doc = op.insertOne.document;
        if (this.store.has(doc._id)) throw duplicateKey(index, doc._id);
        this.store.set(doc._id, structuredClone(doc));
        insertedCount += 1;
      } else if ('updateOne' in op) {
        const { filter, update, upsert } = op.updateOne;
        const unknown = Object.keys(update).filter((k) => k !== '$set' && k !== '$unset');
        if (unknown.length > 0) throw new Error(`memory-mongo has no ${unknown.join(', ')}`);
        const found = [...this.store.values()].find((d) => matches(d, filter));
        if (found) matchedCount += 1;
        else if (!upsert) continue;
        const base: Doc = found ?? { _id: String(filter._id) };
        const next: Doc = { ...base, ...structuredClone(update.$set ?? {}) };
        for (const field of Object.keys(update.$unset ?? {})) delete next[field];
        if (!found && this.store.has(next._id)) throw duplicateKey(index, next._id);
        this.store.set(next._id, next);
      } else {
        const found = [...this.store.values()].find((d) => matches(d, op.deleteOne.filter));
        if (found) this.store.delete(found._id);
      }
    }
    return { insertedCount, matchedCount };
  }
}

/** The database. `crashAfter(n)` makes the write after the next n single writes throw
 *  CrashError (and every one after it, until `crashAfter(null)`); `interruptAfter(n, other)`
 *  runs `other` (another writer) there instead, once, then goes on. */
export class MemoryMongo {
  private readonly collections = new Map<string, Map<string, Doc>>();
  private writesLeft: number | null = null;
  private interruption: { writesLeft: number; other: () => Promise<void> } | null = null;

  crashAfter(writes: number | null): void {
    this.writesLeft = writes;
  }

  interruptAfter(writes: number, other: () => Promise<void>): void {
    this.interruption = { writesLeft: writes, other };
  }

  private async beforeWrite(): Promise<void> {
    const interruption = this.interruption;
    if (interruption && interruption.writesLeft-- === 0) {
      this.interruption = null;
      await interruption.other();
    }
    if (this.writesLeft === null) return;
    if (this.writesLeft === 0) throw new CrashError();
    this.writesLeft -= 1;
  }

  documents(collection: string): Doc[] {
    return [...(this.collections.get(collection)?.values() ?? [])].map((d) => structuredClone(d));
  }

  collection(name: string): MemoryCollection {
    let store = this.collections.get(name);
    if (!store) {
      store = new Map();
      this.collections.set(name, store);
    }
    return new MemoryCollection(store, () => this.beforeWrite());
  }

  /** As the driver's Db, for the calls above only. */
  asDb(): Db {
    return this as unknown as Db;
  }
}
