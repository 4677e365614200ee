import type { Db, Document } from 'mongodb';
import { addEvent, sessionTimes, type SessionSpan } from '../../domain/sessions.ts';
import type { DerivedSession, DerivedSessionsQueries, DerivedSessionsQuery, DerivedSessionsWriter, SessionKey } from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import { inProjects, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Derived sessions in MongoDB: one document per project × identifier × service holding all its
 *  sessions and the last log position applied to it. A single-document update is atomic, so a
 *  replayed batch (after a crash before the checkpoint) skips what the document already has:
 *  counts are never doubled, without multi-document transactions. */
interface KeyDoc extends SessionKey { _id: string; sessions: SessionSpan[]; applied_through: number }

const COLLECTION = 'derived_sessions';

const derivedSessionsMongoSchema: MongoSchema = {
  version: 1,
  collections: [COLLECTION],
  async ensureIndexes(db) {
    await db.collection(COLLECTION).createIndexes([
      { key: { project_id: 1, 'sessions.start': -1 } },
      { key: { project_id: 1, identifier: 1 } },
      { key: { project_id: 1, service_name: 1 } },
    ]);
  },
};

const mongoDerivedSessionsWriter = (ops: BulkOps): DerivedSessionsWriter => {
  const pending = new Map<string, { key: SessionKey; events: Array<{ ts: number; position: number }> }>();
  return {
    event(key, ts, position) {
      const id = JSON.stringify([key.project_id, key.identifier, key.service_name]);
      let entry = pending.get(id);
      if (!entry) {
        const created = { key, events: [] as Array<{ ts: number; position: number }> };
        entry = created;
        pending.set(id, created);
        ops.defer(async (db) => {
          const collection = db.collection<KeyDoc>(COLLECTION);
          const doc = await collection.findOne({ _id: id });
          const applied = doc?.applied_through ?? -1;
          const fresh = created.events.filter((e) => e.position > applied);
          if (fresh.length === 0) return;
          const sessions = fresh.reduce((spans, e) => addEvent(spans, e.ts), doc?.sessions ?? []);
          await collection.updateOne(
            { _id: id },
            { $set: { ...created.key, sessions, applied_through: fresh[fresh.length - 1]!.position } },
            { upsert: true },
          );
        });
      }
      entry.events.push({ ts, position: Number(position) });
    },
  };
};

class MongoDerivedSessionsQueries implements DerivedSessionsQueries {
  constructor(private readonly db: Db) {}

  async list(q: DerivedSessionsQuery, scope: Scope): Promise<Page<DerivedSession>> {
    const projects = projectsInScope(scope, q.project_id);
    if (seesNothing(projects)) return emptyPage(q);
    const match: Document = inProjects(projects);
    if (q.identifier !== undefined) match.identifier = q.identifier;
    if (q.service_name !== undefined) match.service_name = q.service_name;
    const start: Document = {};
    if (q.start_date !== undefined) start.$gte = Date.parse(q.start_date);
    if (q.end_date !== undefined) start.$lte = Date.parse(q.end_date);
    const inRange = Object.keys(start).length ? [{ $match: { 'sessions.start': start } }] : [];
    const [result] = await this.db.collection<KeyDoc>(COLLECTION).aggregate<{ data: Array<SessionKey & { s: SessionSpan }>; total: Array<{ n: number }> }>([
      { $match: { ...match, ...(inRange.length ? { sessions: { $elemMatch: { start } } } : {}) } },
      { $unwind: '$sessions' },
      ...inRange,
      { $project: { _id: 0, project_id: 1, identifier: 1, service_name: 1, s: '$sessions' } },
      { $sort: { 's.start': -1, project_id: 1, identifier: 1, service_name: 1 } },
      { $facet: { data: [{ $skip: offsetOf(q) }, { $limit: q.limit }], total: [{ $count: 'n' }] } },
    ]).toArray();
    return pageOf((result?.data ?? []).map(({ s, ...key }) => ({ ...key, ...sessionTimes(s) })), q, result?.total[0]?.n ?? 0);
  }
}

export const mongoDerivedSessions: MongoReadModel<DerivedSessionsWriter, DerivedSessionsQueries> = {
  schema: derivedSessionsMongoSchema,
  batchWriter: () => mongoDerivedSessionsWriter,
  queries: (db) => new MongoDerivedSessionsQueries(db),
};
