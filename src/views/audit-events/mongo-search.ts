import type { Document } from 'mongodb';
import { type SearchTerm, hasTerms } from '../../domain/search.ts';
import type { AuditFilter } from './port.ts';

/** Search in the MongoDB audit-events read model. Each document carries `search_text`
 *  (searchTextOf: the domain's tokens separated by single spaces) under a text index whose
 *  language is "none" (no stemming, no stop words), so the index holds the same words as
 *  SQLite's FTS5 table. A text search ORs its words and matches phrases as substrings, so it only
 *  narrows the candidates; each term is then checked on `search_text` by a regular expression
 *  anchored at spaces, which gives FTS5's answer: every word, phrases as whole adjacent words.
 *  Exclusions are such expressions alone (a text search cannot exclude without a word to find). */
export const SEARCH_INDEX = {
  key: { search_text: 'text' },
  name: 'audit_search_text',
  default_language: 'none',
} as const;

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Whole adjacent tokens inside `search_text` (tokens are letters and digits only). */
const wordsRegex = (tokens: readonly string[]): RegExp => new RegExp(`(?:^| )${tokens.join(' ')}(?: |$)`);

const prefixRegex = (prefix: string): RegExp => new RegExp(`^${escapeRegex(prefix)}`);

const columnCondition = (term: Exclude<SearchTerm, { kind: 'text' }>): Document => {
  if (term.kind === 'status') return { status_code: { $gte: term.from, $lte: term.to } };
  return { [term.field]: term.prefix ? { $regex: prefixRegex(term.value) } : term.value };
};

/** The filters of issue 34 (tenant, path prefix, search) as additions to a find's filter:
 *  `$text` at the top level, as MongoDB requires, and the rest as `$and` clauses. */
export const searchFilterOf = (f: Pick<AuditFilter, 'tenant_id' | 'path_prefix' | 'search'>): Document => {
  const and: Document[] = [];
  const out: Document = {};
  if (f.tenant_id !== undefined) out.tenant_id = f.tenant_id;
  if (f.path_prefix !== undefined) and.push({ path: { $regex: prefixRegex(f.path_prefix) } });
  if (hasTerms(f.search)) {
    const wanted = f.search.terms.filter((term) => term.kind === 'text' && !term.negated);
    if (wanted.length > 0) {
      out.$text = { $search: wanted.flatMap((term) => (term.kind === 'text' ? term.tokens : [])).join(' ') };
    }
    for (const term of f.search.terms) {
      const condition =
        term.kind === 'text' ? { search_text: { $regex: wordsRegex(term.tokens) } } : columnCondition(term);
      and.push(term.negated ? { $nor: [condition] } : condition);
    }
  }
  if (and.length > 0) out.$and = and;
  return out;
};
