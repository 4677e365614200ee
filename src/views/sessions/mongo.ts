import type { Db } from 'mongodb';
import type { SessionView, SessionsQueries, SessionsWriter } from './port.ts';
import { unfenced, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Sessions keyed by id; every write is an idempotent upsert or a keyed update. */
const SESSIONS = 'sessions';

type SessionDoc = Omit<SessionView, 'id'> & { _id: string };

const sessionsMongoSchema: MongoSchema = {
  version: 1,
  collections: [SESSIONS],
  async ensureIndexes(db) {
    await db.collection(SESSIONS).createIndexes([{ key: { user_id: 1, ended_at: 1, created_at: -1 } }]);
  },
};

const toView = (doc: SessionDoc): SessionView => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const mongoSessionsWriter = (ops: BulkOps): SessionsWriter => {
  const set = (id: string, fields: Partial<SessionView>) =>
    ops.add(SESSIONS, { updateOne: { filter: { _id: id }, update: { $set: fields } } });
  return {
    started: ({ id, ...view }) =>
      ops.add(SESSIONS, { updateOne: { filter: { _id: id }, update: { $setOnInsert: view }, upsert: true } }),
    refreshed: (id, at, address, userAgent) => set(id, { last_used_at: at, address, user_agent: userAgent }),
    ended: (id, at, reason) => set(id, { ended_at: at, ended_reason: reason }),
  };
};

class MongoSessionsQueries implements SessionsQueries {
  constructor(private readonly db: Db) {}
  private get sessions() {
    return this.db.collection<SessionDoc>(SESSIONS);
  }
  async get(id: string): Promise<SessionView | null> {
    const doc = await this.sessions.findOne({ _id: id });
    return doc ? toView(doc) : null;
  }
  async openOf(userId: string): Promise<SessionView[]> {
    const docs = await this.sessions
      .find({ user_id: userId, ended_at: null })
      .sort({ created_at: -1, _id: 1 })
      .toArray();
    return docs.map(toView);
  }
}

export const mongoSessions: MongoReadModel<SessionsWriter, SessionsQueries> = {
  schema: sessionsMongoSchema,
  batchWriter: () => mongoSessionsWriter,
  queries: (db) => new MongoSessionsQueries(db),
};
