import type Database from 'better-sqlite3';
import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import { epochMsOf } from '../../domain/codecs.ts';
import type { SessionActivity, SessionEvent, SessionEvents } from '../../domain/sessions.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import { bucketOf, type StatsBucket } from '../../domain/stats.ts';
import { eraseAuditEvent, type ExpiredRange, type RedactableQuery, type RowRef } from '../../domain/retention.ts';
import type {
  AuditListItemWithBody,
  AuditListOptions,
  AuditEventsQueries,
  AuditEventsWriter,
  AuditFilter,
  AuditListQuery,
  StatsEventsFilter,
} from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { searchTextOf } from '../../domain/search.ts';
import { EVENT_COLUMNS, type EventRow, type ListRow, PROJECT_ID, eventOf, toListItem } from './sqlite-rows.ts';
import { INSERT_SEARCH_TEXT, SEARCH_DDL, type SearchPlan, addSearchFilters, searchPlanner } from './sqlite-search.ts';
import { Where, statementCache, type BatchedWriter, type SqliteSchema, type SqliteReadModel } from '../store/sqlite.ts';

/** The audit-events read model. `position` (the log position of the event that produced the row)
 *  is the rowid and the tie-breaker of every sort, so pages are stable. Each filter of SPEC 4.2
 *  has an index led by the project (every dashboard query names a project or a project list),
 *  followed by the default sort; the other sorts have (project, column). The service and
 *  identifier indexes, the filters dashboards combine most, also carry the other equality
 *  columns, so a combined filter and its totalItems count are answered inside the index.
 *  A row names its project by a small integer key (`audit_projects`): the row and each of its
 *  ten project-led index entries would otherwise carry the 36-character id. Statements turn ids
 *  into keys and back inside SQL (PROJECT_ID, projectsWhere), so no key outlives its file.
 *  Version 6 added the tenant column and the search table (sqlite-search.ts): a data dir of an
 *  earlier version is rebuilt from the log when it opens. */
const auditEventsSchema: SqliteSchema = {
  version: 6,
  tables: ['audit_events', 'audit_projects', 'audit_search'],
  create: `
CREATE TABLE IF NOT EXISTS audit_projects (
  key        INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS audit_events (
  position      INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  project       INTEGER NOT NULL,
  event_type    TEXT NOT NULL,
  method        TEXT NOT NULL,
  path          TEXT NOT NULL,
  status_code   INTEGER,
  response_time INTEGER,
  identifier    TEXT NOT NULL,
  user_email    TEXT,
  service_name  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  session_id    TEXT,
  tenant_id     TEXT,
  ts            INTEGER NOT NULL,
  rest          TEXT NOT NULL
);
${SEARCH_DDL}`,
  queryIndexes: `
CREATE INDEX IF NOT EXISTS audit_ts ON audit_events (ts, position);
CREATE INDEX IF NOT EXISTS audit_project_ts ON audit_events (project, ts, position);
CREATE INDEX IF NOT EXISTS audit_project_service ON audit_events
  (project, service_name, ts, position, method, status_code, environment, event_type, identifier);
CREATE INDEX IF NOT EXISTS audit_project_method ON audit_events (project, method, ts);
CREATE INDEX IF NOT EXISTS audit_project_status ON audit_events (project, status_code, ts);
CREATE INDEX IF NOT EXISTS audit_project_environment ON audit_events (project, environment, ts);
CREATE INDEX IF NOT EXISTS audit_project_identifier ON audit_events
  (project, identifier, ts, position, method, status_code, environment, event_type, service_name);
CREATE INDEX IF NOT EXISTS audit_project_type ON audit_events (project, event_type, ts);
CREATE INDEX IF NOT EXISTS audit_project_response_time ON audit_events (project, response_time);
CREATE INDEX IF NOT EXISTS audit_project_path ON audit_events (project, path);
CREATE INDEX IF NOT EXISTS audit_project_tenant ON audit_events (project, tenant_id, ts) WHERE tenant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS audit_session ON audit_events (session_id, ts, position) WHERE session_id IS NOT NULL;
`,
};

/** Rows of the projects a query may read, by their keys (Where.inProjects). */
const projectsWhere = (projects: readonly string[] | null): Where =>
  new Where().inProjects(projects, 'project', 'audit_projects');

const SORT_COLUMN: Record<AuditListQuery['sort_by'], string> = {
  timestamp: 'ts',
  status_code: 'status_code',
  response_time: 'response_time',
  path: 'path',
  method: 'method',
  service_name: 'service_name',
  identifier: 'identifier',
  environment: 'environment',
};

const EXPORT_BATCH = 1000;

const EQUALITY_FILTERS = [
  'service_name',
  'path',
  'method',
  'status_code',
  'environment',
  'identifier',
  'event_type',
] as const;

class SqliteAuditEventsWriter implements AuditEventsWriter, BatchedWriter {
  private readonly insert;
  private readonly index;
  private readonly expireAll;
  private readonly expireUntil;
  private readonly ofIdentifier;
  private readonly remove;
  private readonly findKey;
  private readonly addKey;
  constructor(
    db: Database.Database,
    private readonly search: boolean,
  ) {
    // Both served by audit_project_ts (project, ts, position).
    this.expireAll = db.prepare('DELETE FROM audit_events WHERE project = ? AND ts < ? AND position <= ?');
    this.expireUntil = db.prepare(
      'DELETE FROM audit_events WHERE project = ? AND ts < ? AND position <= ? AND (ts, position) <= (?, ?)',
    );
    this.ofIdentifier = db.prepare<[number, string, number], EventRow & { position: number }>(
      `SELECT position, ${EVENT_COLUMNS} FROM audit_events WHERE project = ? AND identifier = ? AND position <= ?`,
    );
    this.remove = db.prepare('DELETE FROM audit_events WHERE position = ?');
    this.insert = db.prepare(`INSERT OR IGNORE INTO audit_events
      (position, id, project, event_type, method, path, status_code, response_time, identifier, user_email,
       service_name, environment, session_id, tenant_id, ts, rest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.index = db.prepare(INSERT_SEARCH_TEXT);
    this.findKey = db.prepare<[string], { key: number }>('SELECT key FROM audit_projects WHERE project_id = ?');
    this.addKey = db.prepare<[string]>('INSERT INTO audit_projects (project_id) VALUES (?)');
  }

  /** Keys are kept for one batch only (its transaction): one that rolls back takes the keys it
   *  made with it. */
  private readonly batchKeys = new Map<string, number>();

  private keyOf(projectId: string): number {
    let key = this.batchKeys.get(projectId);
    if (key === undefined) {
      key = this.findKey.get(projectId)?.key ?? Number(this.addKey.run(projectId).lastInsertRowid);
      this.batchKeys.set(projectId, key);
    }
    return key;
  }

  flush(): void {
    this.batchKeys.clear();
  }

  discard(): void {
    this.batchKeys.clear();
  }

  record(e: StoredAuditEvent, position: string): void {
    const {
      id: _id,
      project_id: _project,
      event_type: _type,
      method: _method,
      path: _path,
      status_code: _status,
      response_time: _time,
      identifier: _identifier,
      user_email: _email,
      service_name: _service,
      environment: _environment,
      session_id: _session,
      tenant_id: _tenant,
      timestamp: _at,
      ...rest
    } = e;
    const project = this.keyOf(e.project_id);
    const inserted = this.insert.run(
      Number(position),
      e.id,
      project,
      e.event_type,
      e.method,
      e.path,
      e.status_code ?? null,
      e.response_time ?? null,
      e.identifier,
      e.user_email ?? null,
      e.service_name,
      e.environment,
      e.session_id ?? null,
      e.tenant_id ?? null,
      Date.parse(e.timestamp),
      JSON.stringify(rest),
    );
    // A replayed event keeps its row, and its words are indexed already.
    if (inserted.changes === 1 && this.search) this.index.run(Number(position), searchTextOf(e), project);
  }

  expire({ project_id, cutoff, through, until }: ExpiredRange): void {
    const key = this.findKey.get(project_id)?.key;
    if (key === undefined) return;
    if (until) this.expireUntil.run(key, cutoff, Number(through), until.ts, Number(until.position));
    else this.expireAll.run(key, cutoff, Number(through));
  }

  erase(projectId: string, identifier: string, through: string): void {
    const key = this.findKey.get(projectId)?.key;
    if (key === undefined) return;
    for (const row of this.ofIdentifier.all(key, identifier, Number(through))) {
      this.remove.run(row.position);
      this.record(eraseAuditEvent(eventOf(row)), String(row.position));
    }
  }
}

/** WHERE clause for a filter within a scope (and its search's plan, for a list). */
const whereClause = (f: AuditFilter, scope: Scope, plan?: SearchPlan | null): Where => {
  const where = projectsWhere(projectsInScope(scope, f.project_id));
  for (const key of EQUALITY_FILTERS) where.addIf(f[key], `${key} = ?`);
  return addSearchFilters(where, f, plan?.text, plan?.scan)
    .addIf(epochMsOf(f.start_date), 'ts >= ?')
    .addIf(epochMsOf(f.end_date), 'ts <= ?');
};

/** The SELECT of a list page with its parameters, and its WHERE (for the count); null when the
 *  scope excludes everything asked for. The contract suite asks SQLite for this statement's plan
 *  to check that an index serves the sort. */
export const auditListStatement = (
  q: AuditListQuery,
  scope: Scope,
  options: AuditListOptions = {},
  plan: SearchPlan | null = null,
): { sql: string; params: unknown[]; where: Where } | null => {
  const where = whereClause(q, scope, plan);
  if (where.matchesNothing) return null;
  const dir = q.sort_order === 'asc' ? 'ASC' : 'DESC';
  const sql = `SELECT id, ${PROJECT_ID}, event_type, method, path, status_code, response_time, identifier, user_email,
              service_name, environment, ts${options.withRequestBody ? ', rest' : ''}
       FROM audit_events ${where}
       ORDER BY ${SORT_COLUMN[q.sort_by]} ${dir}, position ${dir} LIMIT ? OFFSET ?`;
  return { sql, params: [...where.params, q.limit, offsetOf(q)], where };
};

class SqliteAuditEventsQueries implements AuditEventsQueries {
  private readonly stmt;
  private readonly byId;
  private readonly plan;
  constructor(db: Database.Database) {
    this.stmt = statementCache(db);
    this.plan = searchPlanner(db);
    this.byId = db.prepare<[string], EventRow>(`SELECT ${EVENT_COLUMNS} FROM audit_events WHERE id = ?`);
  }

  async list(q: AuditListQuery, scope: Scope, options: AuditListOptions = {}): Promise<Page<AuditListItemWithBody>> {
    const projects = projectsInScope(scope, q.project_id);
    const plan = projects?.length === 0 ? null : this.plan(q, projects, q.sort_by === 'timestamp');
    const page = plan?.total === 0 ? null : auditListStatement(q, scope, options, plan);
    if (!page) return emptyPage(q);
    const rows = this.stmt(page.sql).all(...page.params) as ListRow[];
    const n =
      plan?.total ??
      (this.stmt(`SELECT COUNT(*) AS n FROM audit_events ${page.where}`).get(...page.where.params) as { n: number }).n;
    return pageOf(
      rows.map((r) =>
        options.withRequestBody
          ? { ...toListItem(r), request_body: (JSON.parse(r.rest!) as Partial<StoredAuditEvent>).request_body ?? null }
          : toListItem(r),
      ),
      q,
      n,
    );
  }

  async sessionEvents(sessionId: string, scope: Scope, limit: number): Promise<SessionEvents> {
    const where = projectsWhere(projectsInScope(scope)).add('session_id = ?', sessionId);
    if (where.matchesNothing) return { total: 0, lastTimestamp: null, events: [] };
    const rows = this.stmt(`SELECT id, method, path, status_code, ts, identifier, service_name FROM audit_events
      ${where} ORDER BY ts, position LIMIT ?`).all(...where.params, limit) as Array<
      Omit<SessionEvent, 'timestamp'> & { ts: number }
    >;
    const { n, last } = this.stmt(`SELECT COUNT(*) AS n, MAX(ts) AS last FROM audit_events ${where}`).get(
      ...where.params,
    ) as { n: number; last: number | null };
    return {
      total: n,
      lastTimestamp: last === null ? null : new Date(last).toISOString(),
      events: rows.map(({ ts, ...r }) => ({ ...r, timestamp: new Date(ts).toISOString() })),
    };
  }

  async sessionActivity(filter: AuditFilter, scope: Scope, limit: number): Promise<SessionActivity[]> {
    const where = whereClause({ ...filter, event_type: 'http' }, scope);
    if (where.matchesNothing) return [];
    return this.stmt(
      `SELECT ${PROJECT_ID}, identifier, service_name, ts FROM audit_events ${where} ` +
        'ORDER BY ts DESC, position DESC LIMIT ?',
    ).all(...where.params, limit) as SessionActivity[];
  }

  /** Served by audit_project_type (project, event_type, ts), or audit_ts for every project. */
  async statsContributions(f: StatsEventsFilter, scope: Scope): Promise<StatsBucket[]> {
    const where = projectsWhere(projectsInScope(scope, f.project_id))
      .add('event_type = ?', 'http')
      .addIf(f.service_name, 'service_name = ?')
      .addIf(f.environment, 'environment = ?')
      .addIf(f.identifier, 'identifier = ?')
      .addIf(f.path, 'path = ?');
    addSearchFilters(where, f).add('ts >= ?', f.from).add('ts <= ?', f.to);
    if (where.matchesNothing) return [];
    const rows = this.stmt(
      `SELECT ${PROJECT_ID}, service_name, environment, method, status_code, response_time, ts ` +
        `FROM audit_events ${where}`,
    ).all(...where.params) as Array<
      Pick<ListRow, 'project_id' | 'service_name' | 'environment' | 'method' | 'status_code' | 'response_time' | 'ts'>
    >;
    return rows.map((r) =>
      bucketOf({
        project_id: r.project_id,
        service_name: r.service_name,
        environment: r.environment,
        method: r.method,
        status_code: r.status_code ?? undefined,
        response_time: r.response_time ?? undefined,
        timestamp: new Date(r.ts).toISOString(),
      }),
    );
  }

  async count(filter: AuditFilter, scope: Scope): Promise<number> {
    const where = whereClause(filter, scope);
    if (where.matchesNothing) return 0;
    return (this.stmt(`SELECT COUNT(*) AS n FROM audit_events ${where}`).get(...where.params) as { n: number }).n;
  }

  /** Keyset pages of EXPORT_BATCH rows: each page is one short synchronous query, and the
   *  consumer's backpressure decides when the next one runs. */
  async *exportBatches(filter: AuditFilter, scope: Scope, limit: number): AsyncIterable<StoredAuditEvent[]> {
    const where = whereClause(filter, scope);
    if (where.matchesNothing) return;
    const conjunction = String(where) ? `${where} AND` : 'WHERE';
    let last: { ts: number; position: number } | null = null;
    for (let sent = 0; sent < limit; ) {
      const size = Math.min(EXPORT_BATCH, limit - sent);
      const rows = (
        last === null
          ? this.stmt(
              `SELECT position, ${EVENT_COLUMNS} FROM audit_events ${where} ORDER BY ts DESC, position DESC LIMIT ?`,
            ).all(...where.params, size)
          : this.stmt(
              `SELECT position, ${EVENT_COLUMNS} FROM audit_events ` +
                `${conjunction} (ts < ? OR (ts = ? AND position < ?))
            ORDER BY ts DESC, position DESC LIMIT ?`,
            ).all(...where.params, last.ts, last.ts, last.position, size)
      ) as Array<EventRow & { position: number }>;
      if (rows.length === 0) return;
      sent += rows.length;
      last = rows[rows.length - 1]!;
      yield rows.map(eventOf);
      if (rows.length < size) return;
    }
  }

  async get(id: string, scope: Scope): Promise<StoredAuditEvent | null> {
    const row = this.byId.get(id);
    if (!row || !inScope(scope, row.project_id)) return null;
    return eventOf(row);
  }

  /** Served by audit_project_ts, or audit_project_identifier for an identifier. */
  async redactable(q: RedactableQuery, after: RowRef | null, limit: number): Promise<RowRef[]> {
    const where = projectsWhere([q.project_id])
      .addIf(q.identifier, 'identifier = ?')
      .addIf(q.before, 'ts < ?')
      .add('position <= ?', Number(q.through));
    if (after) where.add('(ts, position) > (?, ?)', after.ts, Number(after.position));
    const rows = this.stmt(`SELECT ts, position FROM audit_events ${where} ORDER BY ts, position LIMIT ?`).all(
      ...where.params,
      limit,
    ) as Array<{ ts: number; position: number }>;
    return rows.map((r) => ({ ts: r.ts, position: String(r.position) }));
  }
}

/** `search: false` leaves the search table empty: what `npm run bench queries` measures the
 *  projector's cost against. */
export const sqliteAuditEventsModel = ({
  search,
}: {
  search: boolean;
}): SqliteReadModel<AuditEventsWriter, AuditEventsQueries> => ({
  schema: auditEventsSchema,
  writer: (db) => new SqliteAuditEventsWriter(db, search),
  queries: (db) => new SqliteAuditEventsQueries(db),
});

export const sqliteAuditEvents = sqliteAuditEventsModel({ search: true });
