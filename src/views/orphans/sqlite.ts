import type Database from 'better-sqlite3';
import { ERASED_IDENTIFIER, type ExpiredRange } from '../../domain/retention.ts';
import { ORPHAN_WINDOW_MS } from '../../domain/orphans.ts';
import { projectsInScope, type Scope } from '../../domain/scope.ts';
import type { AuditListItem } from '../audit-events/port.ts';
import type { OrphansQueries, OrphansQuery, OrphansWriter } from './port.ts';
import { epochMsOf } from '../../domain/codecs.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { Where, statementCache, type SqliteSchema, type SqliteReadModel } from '../store/sqlite.ts';

/** Browser events with a request_id that no backend event has matched yet, and the backend
 *  events' request ids and times, so either side can arrive first. A browser event is kept only
 *  while it is unmatched: the list shows no other, and most browser calls are matched (98 % in
 *  the demo traffic), so keeping them all would be most of this read model's bytes and writes.
 *  A backend request is its key alone (a table without rowid: one B-tree, not a table and an
 *  index of the same columns); a second backend event of the same request at the same
 *  millisecond adds nothing a match needs. */
const orphansSchema: SqliteSchema = {
  version: 4,
  tables: ['browser_requests', 'backend_requests'],
  create: `
CREATE TABLE IF NOT EXISTS browser_requests (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  service_name TEXT NOT NULL,
  ts INTEGER NOT NULL,
  item TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS browser_requests_request ON browser_requests (project_id, request_id, ts);
CREATE TABLE IF NOT EXISTS backend_requests (
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  PRIMARY KEY (project_id, request_id, ts)
) WITHOUT ROWID;
`,
  queryIndexes: `
CREATE INDEX IF NOT EXISTS browser_requests_open ON browser_requests (project_id, ts);
`,
};

class SqliteOrphansWriter implements OrphansWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      backendNear: db.prepare<[string, string, number, number], { n: number }>(
        'SELECT COUNT(*) AS n FROM backend_requests WHERE project_id = ? AND request_id = ? AND ts BETWEEN ? AND ?',
      ),
      insertBrowser: db.prepare('INSERT OR IGNORE INTO browser_requests VALUES (?, ?, ?, ?, ?, ?)'),
      insertBackend: db.prepare('INSERT OR IGNORE INTO backend_requests VALUES (?, ?, ?)'),
      match: db.prepare('DELETE FROM browser_requests WHERE project_id = ? AND request_id = ? AND ts BETWEEN ? AND ?'),
      expireBrowser: db.prepare('DELETE FROM browser_requests WHERE project_id = ? AND ts < ?'),
      expireBackend: db.prepare('DELETE FROM backend_requests WHERE project_id = ? AND ts < ?'),
      erase: db.prepare(`UPDATE browser_requests SET item = json_set(item, '$.identifier', ?, '$.user_email', NULL)
        WHERE project_id = ? AND json_extract(item, '$.identifier') = ?`),
    };
  }

  expire({ project_id, before }: ExpiredRange): void {
    this.stmts.expireBrowser.run(project_id, before);
    this.stmts.expireBackend.run(project_id, before);
  }

  erase(projectId: string, identifier: string): void {
    this.stmts.erase.run(ERASED_IDENTIFIER, projectId, identifier);
  }

  browserEvent(item: AuditListItem, requestId: string): void {
    const ts = Date.parse(item.timestamp);
    if (this.stmts.backendNear.get(item.project_id, requestId, ts - ORPHAN_WINDOW_MS, ts + ORPHAN_WINDOW_MS)!.n > 0)
      return;
    this.stmts.insertBrowser.run(item.id, item.project_id, requestId, item.service_name, ts, JSON.stringify(item));
  }

  backendEvent(projectId: string, requestId: string, ts: number): void {
    this.stmts.insertBackend.run(projectId, requestId, ts);
    this.stmts.match.run(projectId, requestId, ts - ORPHAN_WINDOW_MS, ts + ORPHAN_WINDOW_MS);
  }
}

class SqliteOrphansQueries implements OrphansQueries {
  private readonly stmt;
  constructor(db: Database.Database) {
    this.stmt = statementCache(db);
  }

  async list(q: OrphansQuery, scope: Scope): Promise<Page<AuditListItem & { request_id: string }>> {
    const where = new Where()
      .add('ts <= ?', q.settledBefore)
      .inProjects(projectsInScope(scope, q.project_id))
      .addIf(q.service_name, 'service_name = ?')
      .addIf(epochMsOf(q.start_date), 'ts >= ?')
      .addIf(epochMsOf(q.end_date), 'ts <= ?');
    if (where.matchesNothing) return emptyPage(q);
    const rows = this.stmt(
      `SELECT item, request_id FROM browser_requests ${where} ORDER BY ts DESC, id LIMIT ? OFFSET ?`,
    ).all(...where.params, q.limit, offsetOf(q)) as Array<{ item: string; request_id: string }>;
    const { n } = this.stmt(`SELECT COUNT(*) AS n FROM browser_requests ${where}`).get(...where.params) as {
      n: number;
    };
    return pageOf(
      rows.map((r) => ({ ...(JSON.parse(r.item) as AuditListItem), request_id: r.request_id })),
      q,
      n,
    );
  }
}

export const sqliteOrphans: SqliteReadModel<OrphansWriter, OrphansQueries> = {
  schema: orphansSchema,
  writer: (db) => new SqliteOrphansWriter(db),
  queries: (db) => new SqliteOrphansQueries(db),
};
