import type Database from 'better-sqlite3';
import { type SearchQuery, type SearchTerm, hasTerms } from '../../domain/search.ts';
import type { Where } from '../store/sqlite.ts';
import type { AuditFilter } from './port.ts';

/** Search in the SQLite audit-events read model: an FTS5 table of each row's search text
 *  (searchTextOf) and its project's key, keyed by the row's position. It is contentless (the
 *  text is not stored a second time) with contentless_delete, and a trigger removes a row's entry
 *  whenever the row goes (retention, erasure, which then records the erased form again). The text
 *  holds only the domain's tokens separated by spaces, so unicode61 finds exactly those words.
 *  automerge 16 (4 by default) merges the segments each batch writes less often: it took about a
 *  quarter off the insert's cost in a probe (docs/benchmarks.md, Queries), for a few more
 *  segments read by a query. */
export const SEARCH_DDL = `
CREATE VIRTUAL TABLE IF NOT EXISTS audit_search USING fts5 (
  text, project, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO audit_search (audit_search, rank) VALUES ('automerge', 16);
CREATE TRIGGER IF NOT EXISTS audit_search_delete AFTER DELETE ON audit_events BEGIN
  DELETE FROM audit_search WHERE rowid = old.position;
END;
`;

export const INSERT_SEARCH_TEXT = 'INSERT INTO audit_search (rowid, text, project) VALUES (?, ?, ?)';

/** Above this many matches, a page sorted by time is found by walking the time-ordered index and
 *  probing the matches (the first page is near its start), rather than by reading every match's
 *  row and sorting them. */
const SCAN_ABOVE = 2000;

/** A text term in FTS5's syntax: its tokens as one quoted phrase (tokens hold only letters and
 *  digits, so nothing in them needs escaping). */
const phraseOf = (tokens: readonly string[]): string => `"${tokens.join(' ')}"`;

/** The part of `[from, to)` a prefix covers, in the BINARY collation: U+10FFFF sorts after every
 *  character a prefix may be followed by. */
const prefixEnd = (prefix: string): string => `${prefix}\u{10FFFF}`;

const columnCondition = (term: Exclude<SearchTerm, { kind: 'text' }>): { sql: string; params: unknown[] } => {
  if (term.kind === 'status') return { sql: 'status_code BETWEEN ? AND ?', params: [term.from, term.to] };
  return term.prefix
    ? { sql: `(${term.field} >= ? AND ${term.field} < ?)`, params: [term.value, prefixEnd(term.value)] }
    : { sql: `${term.field} = ?`, params: [term.value] };
};

const texts = (search: SearchQuery, negated: boolean): string[] =>
  search.terms.flatMap((term) => (term.kind === 'text' && term.negated === negated ? [phraseOf(term.tokens)] : []));

/** How a search's words are matched: `match`, the FTS5 query of the rows that have every wanted
 *  word, none of the unwanted ones, and (when `projectKeys` are given) one of those projects; or,
 *  with no wanted word, `exclude`, the query of the rows to leave out. */
export interface TextMatch {
  match: string | null;
  exclude: string | null;
}

export const textMatchOf = (search: SearchQuery | undefined, projectKeys: readonly number[] | null): TextMatch => {
  if (!hasTerms(search)) return { match: null, exclude: null };
  const wanted = texts(search, false);
  const unwanted = texts(search, true);
  const anyOf = unwanted.length === 0 ? null : `text : (${unwanted.join(' OR ')})`;
  if (wanted.length === 0) return { match: null, exclude: anyOf };
  const parts = [`text : (${wanted.join(' ')})`];
  if (projectKeys) parts.push(`project : (${projectKeys.map((key) => `"${key}"`).join(' OR ')})`);
  return { match: parts.join(' AND ') + (anyOf ? ` NOT ${anyOf}` : ''), exclude: null };
};

/** Adds the filters of issue 34 (tenant, path prefix, search) to a query's WHERE clause. `scan`:
 *  the matches are probed while an index is walked, instead of read as rowids. */
export const addSearchFilters = (
  where: Where,
  f: Pick<AuditFilter, 'tenant_id' | 'path_prefix' | 'search'>,
  text: TextMatch = textMatchOf(f.search, null),
  scan = false,
): Where => {
  where.addIf(f.tenant_id, 'tenant_id = ?');
  if (f.path_prefix !== undefined) where.add('(path >= ? AND path < ?)', f.path_prefix, prefixEnd(f.path_prefix));
  const column = scan ? '+position' : 'position';
  if (text.match) where.add(`${column} IN (SELECT rowid FROM audit_search WHERE audit_search MATCH ?)`, text.match);
  if (text.exclude) {
    where.add('position NOT IN (SELECT rowid FROM audit_search WHERE audit_search MATCH ?)', text.exclude);
  }
  for (const term of f.search?.terms ?? []) {
    if (term.kind === 'text') continue;
    const { sql, params } = columnCondition(term);
    // A row whose column is NULL does not have the value: the exclusion keeps it.
    where.add(term.negated ? `(${sql}) IS NOT 1` : sql, ...params);
  }
  return where;
};

const OTHER_FILTERS = [
  'service_name',
  'path',
  'path_prefix',
  'method',
  'status_code',
  'environment',
  'identifier',
  'event_type',
  'tenant_id',
  'start_date',
  'end_date',
] as const;

/** A list's search, planned: how its words match, how many rows match them (counted in the FTS
 *  index alone, which is cheap), whether that count is the list's total (nothing but the projects
 *  and the words filters it), and whether the page should be found by a scan. */
export interface SearchPlan {
  text: TextMatch;
  scan: boolean;
  total: number | null;
}

export const searchPlanner = (db: Database.Database) => {
  const count = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM audit_search WHERE audit_search MATCH ?',
  );
  const projectCount = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM audit_projects');
  const keysOf = (projects: readonly string[]): number[] =>
    db
      .prepare<string[], { key: number }>(
        `SELECT key FROM audit_projects WHERE project_id IN (${projects.map(() => '?').join(', ')})`,
      )
      .all(...projects)
      .map((row) => row.key);
  return (f: AuditFilter, projects: readonly string[] | null, sortedByTime: boolean): SearchPlan | null => {
    const keys = projects === null ? null : keysOf(projects);
    // Projects without a key have no row: nothing matches.
    if (keys?.length === 0) return { text: { match: null, exclude: null }, scan: false, total: 0 };
    // Every project with rows asked for (one project's install, an admin's view): the project
    // term would only intersect the words with every row (twice to three times the cost in a
    // probe), so it is left out.
    const everyProject = keys !== null && keys.length === projectCount.get()!.n;
    const text = textMatchOf(f.search, everyProject ? null : keys);
    if (!text.match) return null;
    const hits = count.get(text.match)!.n;
    const alone = OTHER_FILTERS.every((key) => f[key] === undefined) && f.search!.terms.every((t) => t.kind === 'text');
    return { text, scan: sortedByTime && hits > SCAN_ABOVE, total: alone ? hits : null };
  };
};
