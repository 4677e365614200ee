import type Database from 'better-sqlite3';
import type { ExpiredRange } from '../../domain/retention.ts';
import { epochMsOf } from '../../domain/codecs.ts';
import { SESSION_GAP_MS, mergeEvent, sessionTimes, touches, type SessionSpan } from '../../domain/sessions.ts';
import type {
  DerivedSession,
  DerivedSessionsQueries,
  DerivedSessionsQuery,
  DerivedSessionsWriter,
  SessionKey,
} from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { projectsInScope, type Scope } from '../../domain/scope.ts';
import { Where, statementCache, type BatchedWriter, type SqliteSchema, type SqliteReadModel } from '../store/sqlite.ts';

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
`,
  queryIndexes: `
CREATE INDEX IF NOT EXISTS derived_sessions_project_start ON derived_sessions (project_id, session_start);
CREATE INDEX IF NOT EXISTS derived_sessions_start ON derived_sessions (session_start);
CREATE INDEX IF NOT EXISTS derived_sessions_service ON derived_sessions (project_id, service_name, session_start);
`,
};

type Row = SessionKey & { session_start: number; session_end: number; event_count: number };

/** One key's sessions as a batch sees them: every stored session ending at or after `from` (the
 *  spans an event at or after `from + gap` can touch), and which stored rows are to go. */
interface KeySessions {
  from: number;
  spans: SessionSpan[];
  /** Stored starts whose rows the batch replaced. */
  removed: Set<number>;
  /** Starts of the spans as stored (a span made or changed in the batch is not). */
  stored: Set<number>;
}

/** Sessions are merged in memory through a batch and written at its end: a busy identifier's
 *  events touch its latest session again and again, which is then written once. */
class SqliteDerivedSessionsWriter implements DerivedSessionsWriter, BatchedWriter {
  private readonly endingFrom;
  private readonly remove;
  private readonly put;
  private readonly expireBefore;
  private readonly eraseKey;
  private readonly keys = new Map<string, { key: SessionKey; sessions: KeySessions }>();
  constructor(db: Database.Database) {
    // A key's sessions are disjoint, so those ending at or after a time are its last ones.
    this.endingFrom = db.prepare<[string, string, string], Row>(`SELECT * FROM derived_sessions
      WHERE project_id = ? AND identifier = ? AND service_name = ? ORDER BY session_start DESC`);
    this.remove = db.prepare(
      'DELETE FROM derived_sessions WHERE project_id = ? AND identifier = ? AND service_name = ? AND session_start = ?',
    );
    // A session an event extends keeps its start: its row is changed in place, and the query
    // indexes, which hold none of the columns that change, are left alone.
    this.put = db.prepare(`INSERT INTO derived_sessions VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, identifier, service_name, session_start) DO UPDATE SET
        session_end = excluded.session_end, event_count = excluded.event_count`);
    this.expireBefore = db.prepare(
      'DELETE FROM derived_sessions WHERE project_id = ? AND session_start < ? AND session_end < ?',
    );
    this.eraseKey = db.prepare('DELETE FROM derived_sessions WHERE project_id = ? AND identifier = ?');
  }

  /** What the batch merged so far is written first: the delete applies to it too. */
  expire({ project_id, before }: ExpiredRange): void {
    this.flush();
    this.expireBefore.run(project_id, before, before);
  }

  erase(projectId: string, identifier: string): void {
    this.flush();
    this.eraseKey.run(projectId, identifier);
  }

  /** Reads the stored sessions of `key` ending in [from, before) into `into`. */
  private load(key: SessionKey, from: number, before: number, into: KeySessions): void {
    for (const r of this.endingFrom.iterate(key.project_id, key.identifier, key.service_name)) {
      if (r.session_end < from) break;
      if (r.session_end >= before || into.removed.has(r.session_start)) continue;
      into.spans.push({ start: r.session_start, end: r.session_end, count: r.event_count });
      into.stored.add(r.session_start);
    }
  }

  event(key: SessionKey, ts: number): void {
    const id = `${key.project_id}\u0000${key.identifier}\u0000${key.service_name}`;
    const from = ts - SESSION_GAP_MS;
    let entry = this.keys.get(id);
    if (!entry) {
      entry = { key, sessions: { from, spans: [], removed: new Set(), stored: new Set() } };
      this.load(key, from, Number.POSITIVE_INFINITY, entry.sessions);
      this.keys.set(id, entry);
    } else if (from < entry.sessions.from) {
      this.load(key, from, entry.sessions.from, entry.sessions);
      entry.sessions.from = from;
    }
    const sessions = entry.sessions;
    const touching = sessions.spans.filter((s) => touches(s, ts));
    for (const s of touching) if (sessions.stored.delete(s.start)) sessions.removed.add(s.start);
    sessions.spans = [...sessions.spans.filter((s) => !touches(s, ts)), mergeEvent(touching, ts)];
  }

  flush(): void {
    for (const { key, sessions } of this.keys.values()) {
      const starts = new Set(sessions.spans.map((s) => s.start));
      for (const start of sessions.removed)
        if (!starts.has(start)) this.remove.run(key.project_id, key.identifier, key.service_name, start);
      for (const s of sessions.spans) {
        if (!sessions.stored.has(s.start))
          this.put.run(key.project_id, key.identifier, key.service_name, s.start, s.end, s.count);
      }
    }
    this.discard();
  }

  discard(): void {
    this.keys.clear();
  }
}

const toDerivedSession = (r: Row): DerivedSession => ({
  project_id: r.project_id,
  identifier: r.identifier,
  service_name: r.service_name,
  ...sessionTimes({ start: r.session_start, end: r.session_end, count: r.event_count }),
});

class SqliteDerivedSessionsQueries implements DerivedSessionsQueries {
  private readonly stmt;
  constructor(db: Database.Database) {
    this.stmt = statementCache(db);
  }

  async list(q: DerivedSessionsQuery, scope: Scope): Promise<Page<DerivedSession>> {
    const where = new Where()
      .inProjects(projectsInScope(scope, q.project_id))
      .addIf(q.identifier, 'identifier = ?')
      .addIf(q.service_name, 'service_name = ?')
      .addIf(epochMsOf(q.start_date), 'session_start >= ?')
      .addIf(epochMsOf(q.end_date), 'session_start <= ?');
    if (where.matchesNothing) return emptyPage(q);
    const rows = this.stmt(`SELECT * FROM derived_sessions ${where}
      ORDER BY session_start DESC, project_id, identifier, service_name LIMIT ? OFFSET ?`).all(
      ...where.params,
      q.limit,
      offsetOf(q),
    ) as Row[];
    const { n } = this.stmt(`SELECT COUNT(*) AS n FROM derived_sessions ${where}`).get(...where.params) as {
      n: number;
    };
    return pageOf(rows.map(toDerivedSession), q, n);
  }
}

export const sqliteDerivedSessions: SqliteReadModel<DerivedSessionsWriter, DerivedSessionsQueries> = {
  schema: derivedSessionsSchema,
  writer: (db) => new SqliteDerivedSessionsWriter(db),
  queries: (db) => new SqliteDerivedSessionsQueries(db),
};
