import * as t from 'io-ts';
import type { StoredAuditEvent } from './audit-event.ts';
import { withSchema } from './json-schema.ts';

/** Full-text search over audit events (issue 34; syntax in docs/search.md). Pure: the query
 *  language's parser, and the text an event is found by, which both read-model adapters index
 *  and match the same way. The text is built from the stored event, which is masked before it is
 *  stored, so no value before masking can ever be found. */

/** Event fields a `field:value` term matches exactly (or by prefix), by their names in the
 *  event; `status` (a code or a class, `5xx`) has a term of its own. */
export const SEARCH_FIELDS = [
  'path',
  'method',
  'identifier',
  'user_email',
  'service_name',
  'environment',
  'tenant_id',
  'event_type',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Shorter names people type. */
const FIELD_ALIASES: Record<string, SearchField | 'status'> = {
  service: 'service_name',
  tenant: 'tenant_id',
  email: 'user_email',
  status_code: 'status',
  type: 'event_type',
};

/** Fields whose values are one of a few words: a prefix of them says nothing a value would not. */
const WITHOUT_PREFIX: ReadonlySet<SearchField> = new Set(['method', 'environment']);

export type SearchTerm =
  /** A word (one token) or a phrase (tokens next to each other, in order). */
  | { kind: 'text'; tokens: string[]; negated: boolean }
  | { kind: 'field'; field: SearchField; value: string; prefix: boolean; negated: boolean }
  /** status_code from `from` to `to`, both inclusive. */
  | { kind: 'status'; from: number; to: number; negated: boolean };

/** A parsed `q`: every term must hold (a negated one must not). `text` is what was asked. */
export interface SearchQuery {
  text: string;
  terms: SearchTerm[];
}

export const MAX_QUERY_LENGTH = 500;
export const MAX_TERMS = 20;

/** Anything but printable ASCII and white space: text without it takes the fast path. */
const NOT_ASCII = /[^ -~\t\n\r]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/g;
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/** `text` as its words separated by single spaces: lower-case runs of letters and digits, without
 *  diacritics. Everything else separates words, so `jane@example.com` is the three words
 *  `jane example com` and `/orders/42` is `orders 42`. Both adapters receive text made of these
 *  words only, so their own tokenisers (FTS5 unicode61, MongoDB's text index) find the same ones.
 *  ASCII text, the common case, skips the Unicode work (a third of the projector's cost of an
 *  event's text when measured). */
const spacedWords = (text: string): string => {
  const ascii = !NOT_ASCII.test(text);
  const folded = (ascii ? text : text.normalize('NFKD').replace(/\p{M}+/gu, '')).toLowerCase();
  return folded.replace(ascii ? ASCII_SEPARATORS : SEPARATORS, ' ').trim();
};

export const tokensOf = (text: string): string[] => {
  const words = spacedWords(text);
  return words === '' ? [] : words.split(' ');
};

const TEXT_FIELDS = ['path', 'identifier', 'user_email', 'user_name', 'error_message', 'user_agent'] as const;

/** Keys and scalar values of a body, depth first. */
const bodyWords = (value: unknown, out: string[]): void => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) bodyWords(item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      bodyWords(item, out);
    }
  }
};

/** The words an event is found by, space-separated: its text fields and its request and response
 *  bodies' keys and values, as stored (masked). */
export const searchTextOf = (event: StoredAuditEvent): string => {
  const parts: string[] = [];
  for (const field of TEXT_FIELDS) {
    const value = event[field];
    if (value !== undefined) parts.push(value);
  }
  bodyWords(event.request_body, parts);
  bodyWords(event.response_body, parts);
  return spacedWords(parts.join(' '));
};

export class SearchSyntaxError extends Error {}

/** A lexeme: a run without spaces, where a double-quoted part may hold spaces. */
const lexemes = (q: string): string[] => {
  const out: string[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < q.length && !/\s/.test(q[i]!)) {
      if (q[i] === '"') {
        const close = q.indexOf('"', i + 1);
        if (close < 0) throw new SearchSyntaxError(`has a quote at character ${i + 1} that is never closed`);
        i = close + 1;
      } else i += 1;
    }
    out.push(q.slice(start, i));
  }
  return out;
};

const unquoted = (s: string): { text: string; quoted: boolean } =>
  s.length >= 2 && s.startsWith('"') && s.endsWith('"')
    ? { text: s.slice(1, -1), quoted: true }
    : { text: s, quoted: false };

const statusTerm = (value: string, negated: boolean, lexeme: string): SearchTerm => {
  const code = /^([1-5])(\d\d|xx)$/i.exec(value);
  if (!code) throw new SearchSyntaxError(`"${lexeme}": status is a code (404) or a class (5xx)`);
  const first = Number(code[1]) * 100;
  if (code[2]!.toLowerCase() === 'xx') return { kind: 'status', from: first, to: first + 99, negated };
  const n = Number(value);
  return { kind: 'status', from: n, to: n, negated };
};

const fieldTerm = (name: string, raw: string, negated: boolean, lexeme: string): SearchTerm => {
  const field = FIELD_ALIASES[name] ?? name;
  if (raw.includes('"') && !unquoted(raw).quoted) throw new SearchSyntaxError(`"${lexeme}" has a stray quote`);
  const { text } = unquoted(raw);
  const prefix = text.endsWith('*');
  const value = prefix ? text.slice(0, -1) : text;
  if (value.length === 0) throw new SearchSyntaxError(`"${lexeme}" has no value after "${name}:"`);
  if (value.includes('*')) throw new SearchSyntaxError(`"${lexeme}": * may only end a value`);
  if (field === 'status') {
    if (prefix) throw new SearchSyntaxError(`"${lexeme}": status takes a class (5xx), not a prefix`);
    return statusTerm(value, negated, lexeme);
  }
  if (!(SEARCH_FIELDS as readonly string[]).includes(field)) {
    throw new SearchSyntaxError(`"${lexeme}": unknown field "${name}"; fields are ${SEARCH_FIELDS.join(', ')}, status`);
  }
  const known = field as SearchField;
  if (prefix && WITHOUT_PREFIX.has(known)) throw new SearchSyntaxError(`"${lexeme}": ${known} takes no prefix`);
  return { kind: 'field', field: known, value: known === 'method' ? value.toUpperCase() : value, prefix, negated };
};

const termOf = (lexeme: string): SearchTerm => {
  const negated = lexeme.startsWith('-') && lexeme.length > 1;
  const body = negated ? lexeme.slice(1) : lexeme;
  const field = /^([a-z_]+):(.*)$/i.exec(body);
  if (field) return fieldTerm(field[1]!.toLowerCase(), field[2]!, negated, lexeme);
  const { text, quoted } = unquoted(body);
  if (text.includes('"')) throw new SearchSyntaxError(`"${lexeme}" has a stray quote`);
  if (!quoted && text.includes('*')) {
    throw new SearchSyntaxError(`"${lexeme}": a prefix (*) is for field values, such as path:/orders*`);
  }
  const tokens = tokensOf(text);
  if (tokens.length === 0) throw new SearchSyntaxError(`"${lexeme}" has no letter or digit to search for`);
  return { kind: 'text', tokens, negated };
};

/** Parses `q` (throws SearchSyntaxError, whose message says what is wrong and where). A blank
 *  query has no terms and matches every event. */
export const parseSearch = (q: string): SearchQuery => {
  if (q.length > MAX_QUERY_LENGTH) throw new SearchSyntaxError(`is longer than ${MAX_QUERY_LENGTH} characters`);
  const terms = lexemes(q).map(termOf);
  if (terms.length > MAX_TERMS) throw new SearchSyntaxError(`has more than ${MAX_TERMS} terms`);
  return { text: q, terms };
};

/** `q` in a query string: decodes to its parsed form, and fails with the parser's message. */
export const SearchQueryFromString = withSchema(
  new t.Type<SearchQuery, string, unknown>(
    'a search query (docs/search.md)',
    (u): u is SearchQuery => typeof u === 'object' && u !== null && 'terms' in u && 'text' in u,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c);
      try {
        return t.success(parseSearch(u));
      } catch (error) {
        if (error instanceof SearchSyntaxError) return t.failure(u, c, error.message);
        throw error;
      }
    },
    (query) => query.text,
  ),
  { type: 'string', maxLength: MAX_QUERY_LENGTH },
);

/** A `path` filter: exact, or a prefix when it ends with `*`. */
export interface PathMatch {
  value: string;
  prefix: boolean;
}

/** `path` in a query string: a path, or a prefix ending in `*`. */
export const PathMatchFromString = withSchema(
  new t.Type<PathMatch, string, unknown>(
    'a path, or a prefix of paths ending in *',
    (u): u is PathMatch => typeof u === 'object' && u !== null && 'value' in u && 'prefix' in u,
    (u, c) => {
      if (typeof u !== 'string' || u.length === 0 || u.length > 256) return t.failure(u, c);
      const prefix = u.endsWith('*');
      return t.success({ value: prefix ? u.slice(0, -1) : u, prefix });
    },
    (match) => (match.prefix ? `${match.value}*` : match.value),
  ),
  { type: 'string', minLength: 1, maxLength: 256 },
);

/** A path match as the read models' filter fields. */
export const pathFilterOf = (match: PathMatch | undefined): { path?: string; path_prefix?: string } =>
  match === undefined ? {} : match.prefix ? { path_prefix: match.value } : { path: match.value };

/** Terms that hold no words (a blank query) narrow nothing. */
export const hasTerms = (query: SearchQuery | undefined): query is SearchQuery =>
  query !== undefined && query.terms.length > 0;
