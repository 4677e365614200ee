import type Database from 'better-sqlite3';
import { epochMsOf } from '../../domain/codecs.ts';
import { SESSION_GAP_MS, mergeEvent, sessionTimes, type SessionSpan } from '../../domain/sessions.ts';
import type { DerivedSession, DerivedSessionsQueries, DerivedSessionsQuery, DerivedSessionsWriter, SessionKey } from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { projectsInScope, type Scope } from '../../domain/scope.ts';
import { Where, statementCache, type SqliteSchema, type SqliteReadModel } from '../store/sqlite.ts';

/** Derived sessions as rows, one per session; an event merges the (at most two) sessions it
 *  touches into one, inside the projection's transaction. */
const derivedSessionsSchema: SqliteSchema = {
  version: 1,
  tables: ['derived_sessions'],
  create: `
CREATE TABLE IF NOT EXISTS derived_sessions (
  project_id    TEXT NOT NULL,
  identifier    TEXT NOT NULL,
  service_name  TEXT NOT NULL,
  session_start INTEGER NOT NULL,
  session_end   INTEGER NOT NULL,
  event_count   INTEGER NOT NULL,
  PRIMARY KEY (project_id, identifier, service_name, session_start)
);
CREATE INDEX IF NOT EXISTS derived_sessions_project_start ON derived_sessions (project_id, session_start);
CREATE INDEX IF NOT EXISTS derived_sessions_start ON derived_sessions (session_start);
CREATE INDEX IF NOT EXISTS derived_sessions_service ON derived_sessions (project_id, service_name, session_start);
`,
};

type Row = SessionKey & { session_start: number; session_end: number; event_count: number };

class SqliteDerivedSessionsWriter implements DerivedSessionsWriter {
  private readonly touching;
  private readonly remove;
  private readonly insert;
  constructor(db: Database.Database) {
    this.touching = db.prepare<[string, string, string, number, number], Row>(`SELECT * FROM derived_sessions
      WHERE project_id = ? AND identifier = ? AND service_name = ? AND session_end >= ? AND session_start <= ?`);
    this.remove = db.prepare('DELETE FROM derived_sessions WHERE project_id = ? AND identifier = ? AND service_name = ? AND session_start = ?');
    this.insert = db.prepare('INSERT INTO derived_sessions VALUES (?, ?, ?, ?, ?, ?)');
  }

  event(key: SessionKey, ts: number): void {
    const rows = this.touching.all(key.project_id, key.identifier, key.service_name, ts - SESSION_GAP_MS, ts + SESSION_GAP_MS);
    const merged: SessionSpan = mergeEvent(rows.map((r) => ({ start: r.session_start, end: r.session_end, count: r.event_count })), ts);
    for (const r of rows) this.remove.run(key.project_id, key.identifier, key.service_name, r.session_start);
    this.insert.run(key.project_id, key.identifier, key.service_name, merged.start, merged.end, merged.count);
  }
}

const toDerivedSession = (r: Row): DerivedSession => ({
  project_id: r.project_id, identifier: r.identifier, service_name: r.service_name,
  ...sessionTimes({ start: r.session_start, end: r.session_end, count: r.event_count }),
});

class SqliteDerivedSessionsQueries implements DerivedSessionsQueries {
  private readonly stmt;
  constructor(db: Database.Database) {
    this.stmt = statementCache(db);
  }

  async list(q: DerivedSessionsQuery, scope: Scope): Promise<Page<DerivedSession>> {
    const where = new Where().inProjects(projectsInScope(scope, q.project_id))
      .addIf(q.identifier, 'identifier = ?').addIf(q.service_name, 'service_name = ?')
      .addIf(epochMsOf(q.start_date), 'session_start >= ?').addIf(epochMsOf(q.end_date), 'session_start <= ?');
    if (where.matchesNothing) return emptyPage(q);
    const rows = this.stmt(`SELECT * FROM derived_sessions ${where}
      ORDER BY session_start DESC, project_id, identifier, service_name LIMIT ? OFFSET ?`)
      .all(...where.params, q.limit, offsetOf(q)) as Row[];
    const { n } = this.stmt(`SELECT COUNT(*) AS n FROM derived_sessions ${where}`).get(...where.params) as { n: number };
    return pageOf(rows.map(toDerivedSession), q, n);
  }
}

export const sqliteDerivedSessions: SqliteReadModel<DerivedSessionsWriter, DerivedSessionsQueries> = {
  schema: derivedSessionsSchema,
  writer: (db) => new SqliteDerivedSessionsWriter(db),
  queries: (db) => new SqliteDerivedSessionsQueries(db),
};
