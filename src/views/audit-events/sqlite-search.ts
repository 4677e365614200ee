import { type SearchQuery, type SearchTerm, hasTerms } from '../../domain/search.ts';
import type { Where } from '../store/sqlite.ts';
import type { AuditFilter } from './port.ts';

/** Search in the SQLite audit-events read model: an FTS5 table of each row's search text
 *  (searchTextOf), keyed by the row's position. It is contentless (the text is not stored a
 *  second time) with contentless_delete, and a trigger removes a row's entry whenever the row
 *  goes (retention, erasure, which then records the erased form again). The text holds only
 *  the domain's tokens separated by spaces, so unicode61 finds exactly those words. */
export const SEARCH_DDL = `
CREATE VIRTUAL TABLE IF NOT EXISTS audit_search USING fts5 (
  text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS audit_search_delete AFTER DELETE ON audit_events BEGIN
  DELETE FROM audit_search WHERE rowid = old.position;
END;
`;

export const INSERT_SEARCH_TEXT = 'INSERT INTO audit_search (rowid, text) VALUES (?, ?)';

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

const addSearch = (where: Where, search: SearchQuery): void => {
  const words = search.terms.filter((term) => term.kind === 'text');
  const wanted = words.filter((term) => !term.negated).map((term) => phraseOf(term.tokens));
  const unwanted = words.filter((term) => term.negated).map((term) => phraseOf(term.tokens));
  if (wanted.length > 0) {
    where.add('position IN (SELECT rowid FROM audit_search WHERE audit_search MATCH ?)', wanted.join(' '));
  }
  if (unwanted.length > 0) {
    where.add('position NOT IN (SELECT rowid FROM audit_search WHERE audit_search MATCH ?)', unwanted.join(' OR '));
  }
  for (const term of search.terms) {
    if (term.kind === 'text') continue;
    const { sql, params } = columnCondition(term);
    // A row whose column is NULL does not have the value: the exclusion keeps it.
    where.add(term.negated ? `(${sql}) IS NOT 1` : sql, ...params);
  }
};

/** Adds the filters of issue 34 (tenant, path prefix, search) to a list's WHERE clause. */
export const addSearchFilters = (where: Where, f: Pick<AuditFilter, 'tenant_id' | 'path_prefix' | 'search'>): Where => {
  where.addIf(f.tenant_id, 'tenant_id = ?');
  if (f.path_prefix !== undefined) where.add('(path >= ? AND path < ?)', f.path_prefix, prefixEnd(f.path_prefix));
  if (hasTerms(f.search)) addSearch(where, f.search);
  return where;
};
