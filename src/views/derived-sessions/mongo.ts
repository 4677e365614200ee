import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db, type Filter } from 'mongodb';
import { epochMsOf } from '../../domain/codecs.ts';
import { SESSION_GAP_MS, addEvent, sessionTimes, type SessionSpan } from '../../domain/sessions.ts';
import type {
  DerivedSession,
  DerivedSessionsQueries,
  DerivedSessionsQuery,
  DerivedSessionsWriter,
  SessionKey,
} from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import {
  ALIVE,
  TOMBSTONE,
  inProjects,
  live,
  type BulkOps,
  type Fence,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Derived sessions in MongoDB: one document per session, so that no document grows with an
 *  identifier's history, and one small "head" document per project × identifier × service.
 *
 *  The store has no multi-document transactions, and an event may change several session
 *  documents (a late event can join two sessions into one: two removals and an insert). So each
 *  key's head is its commit record. For the key's events of a batch after the head's
 *  `applied_through`, the writer reads the sessions they can touch, works out the key's sessions
 *  after them (addEvent, as the domain does), and then:
 *    1. sets, in one single-document update of the head guarded by the `applied_through` it read,
 *       the new `applied_through`, the key's latest session (`last`), and `redo`: the session
 *       documents to write (whole) and to remove (tombstones, so that a fenced writer cannot
 *       bring them back);
 *    2. applies `redo` to the session documents;
 *    3. removes `redo` from the head (guarded by the new `applied_through`).
 *  A crash before 1 leaves nothing of the key's events, and the replayed batch does it all again.
 *  A crash after 1 leaves `applied_through` past the key's events, so the replay skips them
 *  (nothing counted twice), and the `redo` still in the head: before anything else, the next
 *  batch touching the key (there is one before the checkpoint moves past these events: it holds
 *  them) applies it again and removes it. Applying `redo` twice changes nothing: it writes whole
 *  documents with their final values and marks removals by id, and no other write to the key's sessions
 *  comes between, since a key's next batch first finishes its `redo`. Per key the events are thus
 *  applied exactly once, in log order, up to the last one (as in ../store/mongo-counters.ts).
 *
 *  Session writes are fenced by the lease (a former holder cannot overwrite a newer holder's
 *  session); heads are guarded by log position instead, as counters are: whoever writes a head
 *  first, each event is applied once.
 *
 *  Late events follow the same rule as the embedded adapter: an event joins the (at most two)
 *  sessions within the gap of it, whatever order events arrive in. Every session before the
 *  latest ended more than the gap before the latest started, so an event from the latest
 *  session's start on can touch no session but the latest, which the head holds: in-order events
 *  read no session document. */
interface SessionDoc extends SessionKey {
  _id: string;
  start: number;
  end: number;
  count: number;
}

/** The session writes of a head's last batch, kept until they have all landed: spans to write
 *  whole, and the starts of the spans they absorbed. */
interface Redo {
  put: SessionSpan[];
  drop: number[];
}

interface HeadDoc extends SessionKey {
  _id: string;
  applied_through: number;
  last: SessionSpan;
  redo?: Redo;
}

const SESSIONS = 'derived_sessions';
const HEADS = 'derived_session_heads';

/** Every list filter is a project (or none, or a list), an identifier and/or a service, and a
 *  range of starts; every list sorts by start desc, then key. Each index holds, after its
 *  equality fields, the sort in order, so a page is read in index order without sorting:
 *  a project (or a list of them, merged), an identifier in a project (also the writer's look-up
 *  of a key's sessions by start: the service is a point in it), a service in a project, and
 *  every project at once. */
const derivedSessionsMongoSchema: MongoSchema = {
  version: 2,
  collections: [SESSIONS, HEADS],
  async ensureIndexes(db) {
    await db
      .collection(SESSIONS)
      .createIndexes([
        { key: { project_id: 1, start: -1, identifier: 1, service_name: 1 } },
        { key: { project_id: 1, identifier: 1, start: -1, service_name: 1 } },
        { key: { project_id: 1, service_name: 1, start: -1, identifier: 1 } },
        { key: { start: -1, project_id: 1, identifier: 1, service_name: 1 } },
      ]);
  },
};

const keyIdOf = (key: SessionKey): string => JSON.stringify([key.project_id, key.identifier, key.service_name]);
const sessionIdOf = (key: SessionKey, start: number): string =>
  JSON.stringify([key.project_id, key.identifier, key.service_name, start]);
const keyOf = ({ project_id, identifier, service_name }: SessionKey): SessionKey => ({
  project_id,
  identifier,
  service_name,
});
const spanOf = ({ start, end, count }: SessionSpan): SessionSpan => ({ start, end, count });

interface KeyEvents {
  key: SessionKey;
  events: Array<{ ts: number; position: number }>;
}

/** A key's step 1: the head to write over the one read (`previous` its applied_through, null
 *  when there was none). */
interface HeadWrite {
  previous: number | null;
  head: HeadDoc & { redo: Redo };
}

/** Windows of ±gap around the timestamps, merged where they overlap: the spans of time whose
 *  sessions the events can touch. */
const windowsAround = (timestamps: readonly number[]): Array<[number, number]> => {
  const windows: Array<[number, number]> = [];
  for (const ts of [...timestamps].sort((a, b) => a - b)) {
    const previous = windows[windows.length - 1];
    if (previous && ts - SESSION_GAP_MS <= previous[1]) previous[1] = ts + SESSION_GAP_MS;
    else windows.push([ts - SESSION_GAP_MS, ts + SESSION_GAP_MS]);
  }
  return windows;
};

/** The key's sessions that overlap [lo, hi], newest first. A key's sessions do not overlap, so
 *  their ends descend with their starts: reading back from `hi` stops at the first that ended
 *  before `lo`. */
const sessionsOverlapping = async (
  sessions: Collection<SessionDoc>,
  key: SessionKey,
  lo: number,
  hi: number,
): Promise<SessionSpan[]> => {
  const cursor = sessions
    .find(live({ ...keyOf(key), start: { $lte: hi } }), { projection: { _id: 0, start: 1, end: 1, count: 1 } })
    .sort({ start: -1 })
    .batchSize(8);
  const found: SessionSpan[] = [];
  // Leaving the loop early closes the cursor (the driver's async iterator does).
  for await (const doc of cursor) {
    if (doc.end < lo) break;
    found.push(spanOf(doc));
  }
  return found;
};

/** The stored sessions that events at `timestamps` can touch (and maybe a few more): the
 *  latest, and for events before its start, those around them. */
const sessionsTouched = async (
  sessions: Collection<SessionDoc>,
  key: SessionKey,
  last: SessionSpan | null,
  timestamps: readonly number[],
): Promise<SessionSpan[]> => {
  if (last === null) return [];
  const byStart = new Map([[last.start, last]]);
  for (const [lo, hi] of windowsAround(timestamps.filter((ts) => ts < last.start))) {
    for (const span of await sessionsOverlapping(sessions, key, lo, hi)) byStart.set(span.start, span);
  }
  return [...byStart.values()];
};

/** What turning `before` into `after` writes: the spans that are new or changed, and the starts
 *  of those gone. A span keeps its document while its start stays. */
const redoOf = (before: readonly SessionSpan[], after: readonly SessionSpan[]): Redo => {
  const old = new Map(before.map((s) => [s.start, s]));
  const kept = new Set(after.map((s) => s.start));
  return {
    put: after.filter((s) => {
      const o = old.get(s.start);
      return !o || o.end !== s.end || o.count !== s.count;
    }),
    drop: before.filter((s) => !kept.has(s.start)).map((s) => s.start),
  };
};

const latestOf = (spans: readonly SessionSpan[]): SessionSpan =>
  spans.reduce((latest, s) => (s.start > latest.start ? s : latest));

/** The head write for a key's events of the batch; null when the head already has them all. */
const planKey = async (
  sessions: Collection<SessionDoc>,
  id: string,
  { key, events }: KeyEvents,
  head: HeadDoc | null,
): Promise<HeadWrite | null> => {
  const fresh = head === null ? events : events.filter((e) => e.position > head.applied_through);
  const lastEvent = fresh[fresh.length - 1];
  if (!lastEvent) return null;
  const before = await sessionsTouched(
    sessions,
    key,
    head && spanOf(head.last),
    fresh.map((e) => e.ts),
  );
  const after = fresh.reduce((spans, e) => addEvent(spans, e.ts), before);
  return {
    previous: head?.applied_through ?? null,
    head: {
      _id: id,
      ...keyOf(key),
      applied_through: lastEvent.position,
      last: latestOf(after),
      redo: redoOf(before, after),
    },
  };
};

/** Step 1 for every key at once; whether every head took its write. One that did not was moved
 *  by another writer since it was read (a former lease holder finishing its batch): the caller
 *  reads it again. */
const writeHeads = async (heads: Collection<HeadDoc>, writes: readonly HeadWrite[]): Promise<boolean> => {
  const ops: AnyBulkWriteOperation<HeadDoc>[] = writes.map(({ previous, head }) => {
    if (previous === null) return { insertOne: { document: head } };
    const { _id, applied_through, last, redo } = head;
    return {
      updateOne: { filter: { _id, applied_through: previous }, update: { $set: { applied_through, last, redo } } },
    };
  });
  try {
    const result = await heads.bulkWrite(ops, { ordered: false });
    return result.insertedCount + result.matchedCount === ops.length;
  } catch (error) {
    if (onlyDuplicateKeys(error)) return false;
    throw error;
  }
};

/** Two first inserts of one head: the other writer's landed. */
const onlyDuplicateKeys = (error: unknown): boolean => {
  const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
  return errors.length > 0 && errors.every((e) => e.code === 11000);
};

/** Steps 2 and 3 for the heads' `redo`s. A redo another writer removed meanwhile (it applied
 *  it, and maybe wrote newer sessions) stays removed: the guard no longer matches. */
const applyRedo = async (db: Db, written: ReadonlyArray<HeadDoc & { redo: Redo }>, fence: Fence): Promise<void> => {
  if (written.length === 0) return;
  const ops: AnyBulkWriteOperation<SessionDoc>[] = written.flatMap((head) => [
    // A dropped session is a tombstone, not a delete: a former lease holder replaying an older
    // redo then finds it fenced instead of inserting it again (see Fence).
    ...head.redo.drop.map(
      (start): AnyBulkWriteOperation<SessionDoc> => ({
        updateOne: { filter: fence.filter({ _id: sessionIdOf(head, start) }), update: fence.update(TOMBSTONE) },
      }),
    ),
    ...head.redo.put.map(
      (span): AnyBulkWriteOperation<SessionDoc> => ({
        updateOne: {
          filter: fence.filter({ _id: sessionIdOf(head, span.start) }),
          update: fence.update({ $set: { ...keyOf(head), ...spanOf(span), ...ALIVE } }),
          upsert: true,
        },
      }),
    ),
  ]);
  if (ops.length > 0) await db.collection<SessionDoc>(SESSIONS).bulkWrite(ops);
  await db.collection<HeadDoc>(HEADS).bulkWrite(
    written.map(({ _id, applied_through }) => ({
      updateOne: { filter: { _id, applied_through }, update: { $unset: { redo: '' } } },
    })),
  );
};

const hasRedo = (head: HeadDoc): head is HeadDoc & { redo: Redo } => head.redo !== undefined;

const MAX_ATTEMPTS = 5;

/** The batch's events, key by key, through steps 1 to 3; first the `redo` a crash left in the
 *  heads of these keys. A constant number of round trips per batch, whatever the number of keys,
 *  plus a read per late event's window. */
const applyBatch = async (db: Db, batch: ReadonlyMap<string, KeyEvents>, fence: Fence): Promise<void> => {
  const heads = db.collection<HeadDoc>(HEADS);
  const sessions = db.collection<SessionDoc>(SESSIONS);
  let ids = [...batch.keys()];
  for (let attempt = 1; ; attempt += 1) {
    const stored = await heads.find({ _id: { $in: ids } }).toArray();
    await applyRedo(db, stored.filter(hasRedo), fence);
    const byId = new Map(stored.map((h) => [h._id, h]));
    const planned = await Promise.all(ids.map((id) => planKey(sessions, id, batch.get(id)!, byId.get(id) ?? null)));
    const writes = planned.filter((w): w is HeadWrite => w !== null);
    if (writes.length === 0) return;
    if (await writeHeads(heads, writes)) {
      await applyRedo(
        db,
        writes.map((w) => w.head),
        fence,
      );
      return;
    }
    // The heads that took their write hold their redo: the next round applies it.
    if (attempt === MAX_ATTEMPTS)
      throw new Error(`derived sessions: heads kept changing under this batch (${writes.length} keys)`);
    ids = writes.map((w) => w.head._id);
  }
};

const mongoDerivedSessionsWriter = (ops: BulkOps): DerivedSessionsWriter => {
  const batch = new Map<string, KeyEvents>();
  return {
    event(key, ts, position) {
      if (batch.size === 0) ops.defer((db, fence) => applyBatch(db, batch, fence));
      const id = keyIdOf(key);
      let entry = batch.get(id);
      if (!entry) {
        entry = { key: keyOf(key), events: [] };
        batch.set(id, entry);
      }
      entry.events.push({ ts, position: Number(position) });
    },
    // After the batch's sessions are written (deferred tasks run in order).
    expire({ project_id, before }) {
      ops.defer(async (db, fence) => {
        await db
          .collection<SessionDoc>(SESSIONS)
          .deleteMany(fence.filter({ project_id, start: { $lt: before }, end: { $lt: before } }));
      });
    },
    erase(projectId, identifier) {
      ops.defer(async (db, fence) => {
        await db.collection<SessionDoc>(SESSIONS).deleteMany(fence.filter({ project_id: projectId, identifier }));
        await db.collection<HeadDoc>(HEADS).deleteMany({ project_id: projectId, identifier });
      });
    },
  };
};

type SessionRow = Omit<SessionDoc, '_id'>;

const toDerivedSession = ({ project_id, identifier, service_name, ...span }: SessionRow): DerivedSession => ({
  project_id,
  identifier,
  service_name,
  ...sessionTimes(span),
});

class MongoDerivedSessionsQueries implements DerivedSessionsQueries {
  constructor(private readonly db: Db) {}

  async list(q: DerivedSessionsQuery, scope: Scope): Promise<Page<DerivedSession>> {
    const projects = projectsInScope(scope, q.project_id);
    if (seesNothing(projects)) return emptyPage(q);
    const filter: Filter<SessionDoc> = live(inProjects(projects));
    if (q.identifier !== undefined) filter.identifier = q.identifier;
    if (q.service_name !== undefined) filter.service_name = q.service_name;
    const [from, to] = [epochMsOf(q.start_date), epochMsOf(q.end_date)];
    if (from !== undefined || to !== undefined)
      filter.start = { ...(from === undefined ? {} : { $gte: from }), ...(to === undefined ? {} : { $lte: to }) };
    const collection = this.db.collection<SessionDoc>(SESSIONS);
    const [rows, total] = await Promise.all([
      collection
        .find<SessionRow>(filter, {
          projection: { _id: 0, project_id: 1, identifier: 1, service_name: 1, start: 1, end: 1, count: 1 },
        })
        .sort({ start: -1, project_id: 1, identifier: 1, service_name: 1 })
        .skip(offsetOf(q))
        .limit(q.limit)
        .toArray(),
      collection.countDocuments(filter),
    ]);
    return pageOf(rows.map(toDerivedSession), q, total);
  }
}

export const mongoDerivedSessions: MongoReadModel<DerivedSessionsWriter, DerivedSessionsQueries> = {
  schema: derivedSessionsMongoSchema,
  batchWriter: () => mongoDerivedSessionsWriter,
  queries: (db) => new MongoDerivedSessionsQueries(db),
};
