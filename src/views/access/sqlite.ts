import type Database from 'better-sqlite3';
import type { KeyScope } from '../../domain/api-keys.ts';
import type { Role } from '../../domain/codecs.ts';
import { inScope, type Scope } from '../../domain/scope.ts';
import type {
  AccessQueries,
  AccessWriter,
  ActiveKey,
  ApiKeyView,
  KeyRestrictionsView,
  ProjectView,
  UserChanges,
  UserCredentials,
  UserView,
} from './port.ts';
import { statementCache, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** The access read model: projects, API keys by hash, users by e-mail. */
const accessSchema: SqliteSchema = {
  version: 4,
  tables: ['projects', 'api_keys', 'users'],
  create: `
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, name TEXT NOT NULL, prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT,
  allowed_origins TEXT NOT NULL DEFAULT '[]', rate_limit INTEGER,
  scopes TEXT NOT NULL DEFAULT '["ingest"]', expires_at TEXT, last_used_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_project ON api_keys (project_id, created_at);
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, role TEXT NOT NULL,
  project_ids TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0, tokens_valid_after TEXT, created_at TEXT NOT NULL
);
`,
};

/** Lists are JSON text in their columns. */
interface KeyRow extends Omit<ApiKeyView, 'allowed_origins' | 'scopes'> {
  allowed_origins: string;
  scopes: string;
}
const toKey = <K extends Pick<KeyRow, 'allowed_origins' | 'scopes'>>(
  r: K,
): Omit<K, 'allowed_origins' | 'scopes'> & { allowed_origins: string[]; scopes: KeyScope[] } => ({
  ...r,
  allowed_origins: JSON.parse(r.allowed_origins) as string[],
  scopes: JSON.parse(r.scopes) as KeyScope[],
});
const KEY_COLUMNS =
  'id, project_id, name, prefix, created_at, revoked_at, scopes, expires_at, allowed_origins, rate_limit, last_used_at';

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  role: Role;
  project_ids: string;
  disabled: number;
  tokens_valid_after: string | null;
  created_at: string;
}

const toUser = (r: UserRow): UserView => ({
  id: r.id,
  email: r.email,
  role: r.role,
  project_ids: JSON.parse(r.project_ids) as string[],
  disabled: r.disabled === 1,
  tokens_valid_after: r.tokens_valid_after,
  created_at: r.created_at,
});

/** The columns of a user's row that a change sets, as SQL values. */
const userColumns = (c: UserChanges): Array<[string, unknown]> => {
  const columns: Array<[string, unknown]> = [];
  if (c.role !== undefined) columns.push(['role', c.role]);
  if (c.project_ids !== undefined) columns.push(['project_ids', JSON.stringify(c.project_ids)]);
  if (c.disabled !== undefined) columns.push(['disabled', c.disabled ? 1 : 0]);
  if (c.tokens_valid_after !== undefined) columns.push(['tokens_valid_after', c.tokens_valid_after]);
  if (c.password_hash !== undefined) columns.push(['password_hash', c.password_hash]);
  return columns;
};

class SqliteAccessWriter implements AccessWriter {
  private readonly stmts;
  private readonly statement;
  constructor(db: Database.Database) {
    this.statement = statementCache(db);
    this.stmts = {
      project: db.prepare('INSERT OR IGNORE INTO projects (id, name, created_at) VALUES (?, ?, ?)'),
      key: db.prepare(
        `INSERT OR IGNORE INTO api_keys (${KEY_COLUMNS}, key_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      restrict: db.prepare(
        'UPDATE api_keys SET scopes = ?, expires_at = ?, allowed_origins = ?, rate_limit = ? WHERE id = ?',
      ),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      used: db.prepare(
        'UPDATE api_keys SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)',
      ),
      user: db.prepare(
        'INSERT OR IGNORE INTO users ' +
          `(id, email, password_hash, role, project_ids, disabled, tokens_valid_after, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }
  projectCreated(p: ProjectView): void {
    this.stmts.project.run(p.id, p.name, p.created_at);
  }
  apiKeyIssued(k: ApiKeyView & { key_hash: string }): void {
    this.stmts.key.run(
      k.id,
      k.project_id,
      k.name,
      k.prefix,
      k.created_at,
      k.revoked_at,
      JSON.stringify(k.scopes),
      k.expires_at,
      JSON.stringify(k.allowed_origins),
      k.rate_limit,
      k.last_used_at,
      k.key_hash,
    );
  }
  apiKeyRestricted(keyId: string, r: KeyRestrictionsView): void {
    this.stmts.restrict.run(
      JSON.stringify(r.scopes),
      r.expires_at,
      JSON.stringify(r.allowed_origins),
      r.rate_limit,
      keyId,
    );
  }
  apiKeyRevoked(keyId: string, revokedAt: string): void {
    this.stmts.revoke.run(revokedAt, keyId);
  }
  apiKeyUsed(keyId: string, usedAt: string): void {
    this.stmts.used.run({ at: usedAt, id: keyId });
  }
  userRegistered(u: UserCredentials): void {
    this.stmts.user.run(
      u.id,
      u.email,
      u.password_hash,
      u.role,
      JSON.stringify(u.project_ids),
      u.disabled ? 1 : 0,
      u.tokens_valid_after,
      u.created_at,
    );
  }
  userChanged(id: string, changes: UserChanges): void {
    const columns = userColumns(changes);
    if (columns.length === 0) return;
    this.statement(`UPDATE users SET ${columns.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`).run(
      ...columns.map(([, v]) => v),
      id,
    );
  }
}

class SqliteAccessQueries implements AccessQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      activeKey: db.prepare<
        [string],
        Omit<ActiveKey, 'allowed_origins' | 'scopes'> & Pick<KeyRow, 'allowed_origins' | 'scopes'>
      >(
        'SELECT id, project_id, scopes, expires_at, allowed_origins, rate_limit, last_used_at ' +
          'FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
      ),
      allProjects: db.prepare<[], ProjectView>('SELECT id, name, created_at FROM projects ORDER BY created_at, id'),
      project: db.prepare<[string], ProjectView>('SELECT id, name, created_at FROM projects WHERE id = ?'),
      keys: db.prepare<[string], KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY created_at, id`,
      ),
      userByEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
      userById: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
      users: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY created_at, id'),
      countUsers: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users'),
    };
  }

  async activeKey(keyHash: string): Promise<ActiveKey | null> {
    const row = this.stmts.activeKey.get(keyHash);
    return row ? toKey(row) : null;
  }
  async listProjects(scope: Scope): Promise<ProjectView[]> {
    const all = this.stmts.allProjects.all();
    return all.filter((p) => inScope(scope, p.id));
  }
  async getProject(id: string, scope: Scope): Promise<ProjectView | null> {
    if (!inScope(scope, id)) return null;
    return this.stmts.project.get(id) ?? null;
  }
  async listApiKeys(projectId: string): Promise<ApiKeyView[]> {
    return this.stmts.keys.all(projectId).map(toKey);
  }
  async userByEmail(email: string): Promise<UserCredentials | null> {
    const row = this.stmts.userByEmail.get(email);
    return row ? { ...toUser(row), password_hash: row.password_hash } : null;
  }
  async userById(id: string): Promise<UserView | null> {
    const row = this.stmts.userById.get(id);
    return row ? toUser(row) : null;
  }
  async listUsers(): Promise<UserView[]> {
    return this.stmts.users.all().map(toUser);
  }
  async countUsers(): Promise<number> {
    return this.stmts.countUsers.get()?.n ?? 0;
  }
}

export const sqliteAccess: SqliteReadModel<AccessWriter, AccessQueries> = {
  schema: accessSchema,
  writer: (db) => new SqliteAccessWriter(db),
  queries: (db) => new SqliteAccessQueries(db),
};
