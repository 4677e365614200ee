import type { Db } from 'mongodb';
import { type KeyScope, scopesOf } from '../../domain/api-keys.ts';
import type { Role } from '../../domain/codecs.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type {
  AccessQueries,
  AccessWriter,
  ActiveKey,
  ApiKeyView,
  ProjectView,
  UserCredentials,
  UserView,
} from './port.ts';
import { inProjects, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** The access read model in MongoDB: projects, API keys (unique hash), users (unique e-mail). */
interface ProjectDoc {
  _id: string;
  name: string;
  created_at: string;
}
interface KeyDoc {
  _id: string;
  project_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** Absent on keys projected before keys could be restricted. */
  allowed_origins?: string[];
  rate_limit?: number | null;
  /** Absent on keys projected before keys had scopes, expiry and uses (the schema's version
   *  rebuilds those; read as ingest only, for ever, never used). */
  scopes?: KeyScope[];
  expires_at?: string | null;
  last_used_at?: string | null;
}
interface UserDoc {
  _id: string;
  email: string;
  password_hash: string;
  role: Role;
  project_ids: string[];
  disabled: boolean;
  tokens_valid_after: string | null;
  created_at: string;
}

const accessMongoSchema: MongoSchema = {
  version: 3,
  collections: ['projects', 'api_keys', 'users'],
  async ensureIndexes(db) {
    await db
      .collection('api_keys')
      .createIndexes([{ key: { key_hash: 1 }, unique: true }, { key: { project_id: 1, created_at: 1 } }]);
    await db.collection('users').createIndexes([{ key: { email: 1 }, unique: true }]);
    await db.collection('projects').createIndexes([{ key: { created_at: 1 } }]);
  },
};

const insertOnce = <D extends { _id: string }>(ops: BulkOps, collection: string, doc: D) =>
  ops.add(collection, { updateOne: { filter: { _id: doc._id }, update: { $setOnInsert: doc }, upsert: true } });

const mongoAccessWriter = (ops: BulkOps): AccessWriter => ({
  projectCreated: (p) => insertOnce<ProjectDoc>(ops, 'projects', { _id: p.id, name: p.name, created_at: p.created_at }),
  apiKeyIssued: (k) =>
    insertOnce<KeyDoc>(ops, 'api_keys', {
      _id: k.id,
      project_id: k.project_id,
      name: k.name,
      prefix: k.prefix,
      key_hash: k.key_hash,
      created_at: k.created_at,
      revoked_at: k.revoked_at,
      scopes: k.scopes,
      expires_at: k.expires_at,
      allowed_origins: k.allowed_origins,
      rate_limit: k.rate_limit,
      last_used_at: k.last_used_at,
    }),
  apiKeyRestricted: (keyId, r) =>
    ops.add('api_keys', {
      updateOne: {
        filter: { _id: keyId },
        update: {
          $set: {
            scopes: r.scopes,
            expires_at: r.expires_at,
            allowed_origins: r.allowed_origins,
            rate_limit: r.rate_limit,
          },
        },
      },
    }),
  apiKeyRevoked: (keyId, revokedAt) =>
    ops.add('api_keys', {
      updateOne: { filter: { _id: keyId, revoked_at: null }, update: { $set: { revoked_at: revokedAt } } },
    }),
  // $max: a replayed or late use never moves it back (null sorts before every string in BSON).
  apiKeyUsed: (keyId, usedAt) =>
    ops.add('api_keys', { updateOne: { filter: { _id: keyId }, update: { $max: { last_used_at: usedAt } } } }),
  userRegistered: (u) =>
    insertOnce<UserDoc>(ops, 'users', {
      _id: u.id,
      email: u.email,
      password_hash: u.password_hash,
      role: u.role,
      project_ids: u.project_ids,
      disabled: u.disabled,
      tokens_valid_after: u.tokens_valid_after,
      created_at: u.created_at,
    }),
  // $set of the event's values: applying it again (a replayed batch) changes nothing.
  userChanged: (id, changes) => {
    if (Object.keys(changes).length > 0)
      ops.add('users', { updateOne: { filter: { _id: id }, update: { $set: { ...changes } } } });
  },
});

const toKey = (k: KeyDoc): ApiKeyView => ({
  id: k._id,
  project_id: k.project_id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  revoked_at: k.revoked_at,
  scopes: scopesOf(k.scopes),
  expires_at: k.expires_at ?? null,
  allowed_origins: k.allowed_origins ?? [],
  rate_limit: k.rate_limit ?? null,
  last_used_at: k.last_used_at ?? null,
});
const toUser = (u: UserDoc): UserView => ({
  id: u._id,
  email: u.email,
  role: u.role,
  project_ids: u.project_ids,
  disabled: u.disabled,
  tokens_valid_after: u.tokens_valid_after,
  created_at: u.created_at,
});
const toProject = (p: ProjectDoc): ProjectView => ({ id: p._id, name: p.name, created_at: p.created_at });

class MongoAccessQueries implements AccessQueries {
  constructor(private readonly db: Db) {}

  async activeKey(keyHash: string): Promise<ActiveKey | null> {
    const key = await this.db.collection<KeyDoc>('api_keys').findOne({ key_hash: keyHash, revoked_at: null });
    if (!key) return null;
    const { id, project_id, scopes, expires_at, allowed_origins, rate_limit, last_used_at } = toKey(key);
    return { id, project_id, scopes, expires_at, allowed_origins, rate_limit, last_used_at };
  }
  async listProjects(scope: Scope): Promise<ProjectView[]> {
    return (
      await this.db
        .collection<ProjectDoc>('projects')
        .find(inProjects(projectsInScope(scope), '_id'))
        .sort({ created_at: 1, _id: 1 })
        .toArray()
    ).map(toProject);
  }
  async getProject(id: string, scope: Scope): Promise<ProjectView | null> {
    if (!inScope(scope, id)) return null;
    const p = await this.db.collection<ProjectDoc>('projects').findOne({ _id: id });
    return p ? toProject(p) : null;
  }
  async listApiKeys(projectId: string): Promise<ApiKeyView[]> {
    return (
      await this.db
        .collection<KeyDoc>('api_keys')
        .find({ project_id: projectId })
        .sort({ created_at: 1, _id: 1 })
        .toArray()
    ).map(toKey);
  }
  async userByEmail(email: string): Promise<UserCredentials | null> {
    const u = await this.db.collection<UserDoc>('users').findOne({ email });
    return u ? { ...toUser(u), password_hash: u.password_hash } : null;
  }
  async userById(id: string): Promise<UserView | null> {
    const u = await this.db.collection<UserDoc>('users').findOne({ _id: id });
    return u ? toUser(u) : null;
  }
  async listUsers(): Promise<UserView[]> {
    return (await this.db.collection<UserDoc>('users').find().sort({ created_at: 1, _id: 1 }).toArray()).map(toUser);
  }
  async countUsers(): Promise<number> {
    return this.db.collection('users').countDocuments();
  }
}

export const mongoAccess: MongoReadModel<AccessWriter, AccessQueries> = {
  schema: accessMongoSchema,
  batchWriter: () => mongoAccessWriter,
  queries: (db) => new MongoAccessQueries(db),
};
