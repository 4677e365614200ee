import type Database from 'better-sqlite3';
import type { SessionView, SessionsQueries, SessionsWriter } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

const sessionsSchema: SqliteSchema = {
  version: 1,
  tables: ['sessions'],
  create: `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  method TEXT NOT NULL,
  address TEXT NOT NULL,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT,
  ended_reason TEXT
);
CREATE INDEX IF NOT EXISTS sessions_open_by_user ON sessions (user_id, created_at) WHERE ended_at IS NULL;
`,
};

const COLUMNS =
  'id, user_id, kind, method, address, user_agent, created_at, last_used_at, expires_at, ended_at, ended_reason';

class SqliteSessionsWriter implements SessionsWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(`INSERT OR IGNORE INTO sessions (${COLUMNS}) VALUES (${COLUMNS.replace(/\w+/g, '?')})`),
      refreshed: db.prepare('UPDATE sessions SET last_used_at = ?, address = ?, user_agent = ? WHERE id = ?'),
      ended: db.prepare('UPDATE sessions SET ended_at = ?, ended_reason = ? WHERE id = ?'),
    };
  }
  started(v: SessionView): void {
    this.stmts.insert.run(
      v.id,
      v.user_id,
      v.kind,
      v.method,
      v.address,
      v.user_agent,
      v.created_at,
      v.last_used_at,
      v.expires_at,
      v.ended_at,
      v.ended_reason,
    );
  }
  refreshed(id: string, at: string, address: string, userAgent: string | null): void {
    this.stmts.refreshed.run(at, address, userAgent, id);
  }
  ended(id: string, at: string, reason: string): void {
    this.stmts.ended.run(at, reason, id);
  }
}

class SqliteSessionsQueries implements SessionsQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], SessionView>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`),
      open: db.prepare<[string], SessionView>(
        `SELECT ${COLUMNS} FROM sessions WHERE user_id = ? AND ended_at IS NULL ORDER BY created_at DESC, id`,
      ),
    };
  }
  async get(id: string): Promise<SessionView | null> {
    return this.stmts.get.get(id) ?? null;
  }
  async openOf(userId: string): Promise<SessionView[]> {
    return this.stmts.open.all(userId);
  }
}

export const sqliteSessions: SqliteReadModel<SessionsWriter, SessionsQueries> = {
  schema: sessionsSchema,
  writer: (db) => new SqliteSessionsWriter(db),
  queries: (db) => new SqliteSessionsQueries(db),
};
