import { RE2JS } from 're2js';
import type { Observation } from './check-judge.ts';
import { JsonPathError, parseJsonPath, queryJson } from './json-path.ts';
import type { AssertionResult } from './monitor.ts';
import { daysLeft } from './monitor-certificates.ts';
import type { Assertion } from './monitor-options.ts';

/** Assertions on what a check observed (monitor-options.ts `Assertion`): the verdict on one, and
 *  the text of a failure. Pure. The semantics:
 *
 *  - What is compared, by source:
 *    `status`, `response_time` (ms, to the response headers), `certificate_expiry_days` (whole
 *    days left at the check, `daysLeft`): a number;
 *    `body` (the first MAX_BODY_BYTES, decoded as UTF-8) and `header` (`path` names it, in any
 *    case; repeated headers joined by ", "): a text;
 *    `json`: the values `path` matches in the body parsed as JSON (json-path.ts);
 *    `dns_records`: the records, each a text ("10 mail.example.com" for MX).
 *  - A value that is not there (no such header, no JSONPath match, no certificate, no status, a
 *    body that is not JSON) makes `exists` fail and `not_exists` pass, and fails every other op:
 *    a comparison with nothing is never a pass.
 *  - `equals`/`not_equals`: numerically for the numeric sources (a value that is not a number is
 *    never equal); as text for `body`, `header` and `dns_records` (a value that is not a string
 *    is compared by its JSON text: `equals 3` is "3"); for `json`, a string match equals only a
 *    string value, and any other match equals a non-string value when their JSON texts are the
 *    same, so `equals 3` passes on the number 3 (and 3.0) and `equals "3"` on the string "3".
 *  - `contains`/`not_contains`: a substring of the text; for `json`, an element equal to the
 *    value when the match is an array, a substring when it is a string, else a substring of its
 *    JSON text.
 *  - `matches`: an RE2 pattern found anywhere in the text (anchor it with ^…$ for all of it); a
 *    `json` match that is not a string is matched by its JSON text.
 *  - `lt`/`lte`/`gt`/`gte`: numerically; a text (a header, a JSON string) is read as a number,
 *    and one that is not a number fails.
 *  - Several values (`dns_records`, a `json` path with `*` or `..`): `equals`, `contains`,
 *    `matches` and the ordering ops pass when ANY value passes; `not_equals` and `not_contains`
 *    pass when NO value is equal (contains it).
 *  - `received` is what was seen, shortened to 200 characters: the number for the numeric
 *    sources, the text for `body` and `header`, the JSON text of the match for `json` (of the
 *    list of matches for a path with `*` or `..`), the JSON list of `dns_records`; null for a
 *    value that is not there. */

const MAX_RECEIVED = 200;

type Seen =
  | { kind: 'number'; value: number }
  | { kind: 'text'; value: string }
  | { kind: 'json'; values: unknown[]; multiple: boolean }
  | { kind: 'records'; values: string[] }
  | { kind: 'missing'; why?: string };

const MISSING: Seen = { kind: 'missing' };

/** Bodies parsed once per observation, whatever the number of json assertions. */
const parsedBodies = new WeakMap<Observation, { ok: true; value: unknown } | { ok: false }>();

const parsedBody = (o: Observation): { ok: true; value: unknown } | { ok: false } => {
  let parsed = parsedBodies.get(o);
  if (parsed === undefined) {
    try {
      parsed = o.body === undefined ? { ok: false } : { ok: true, value: JSON.parse(o.body) };
    } catch {
      parsed = { ok: false };
    }
    parsedBodies.set(o, parsed);
  }
  return parsed;
};

const seen = (a: Assertion, o: Observation): Seen => {
  const number = (n: number | undefined): Seen => (n === undefined ? MISSING : { kind: 'number', value: n });
  switch (a.source) {
    case 'status':
      return number(o.status_code);
    case 'response_time':
      return number(o.response_ms);
    case 'certificate_expiry_days':
      return number(o.certificate && daysLeft(o.certificate, o.checked_at));
    case 'body':
      return o.body === undefined ? MISSING : { kind: 'text', value: o.body };
    case 'header': {
      const value = o.headers?.[(a.path ?? '').toLowerCase()];
      return value === undefined ? MISSING : { kind: 'text', value };
    }
    case 'dns_records':
      return o.dns_records === undefined ? MISSING : { kind: 'records', values: o.dns_records };
    case 'json': {
      let path: ReturnType<typeof parseJsonPath>;
      try {
        path = parseJsonPath(a.path ?? '');
      } catch (error) {
        if (error instanceof JsonPathError) return { kind: 'missing', why: error.message };
        throw error;
      }
      const body = parsedBody(o);
      if (!body.ok)
        return {
          kind: 'missing',
          why: o.body_truncated ? 'the body is not JSON: it was cut short' : 'the body is not JSON',
        };
      const values = queryJson(body.value, path);
      return values.length === 0 ? MISSING : { kind: 'json', values, multiple: path.multiple };
    }
  }
};

/** A value's text for comparing it with a text: a string as it is, anything else as JSON. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

const numberOf = (v: unknown): number | null => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

const jsonEquals = (match: unknown, value: unknown): boolean =>
  typeof match === 'string' || typeof value === 'string'
    ? match === value
    : JSON.stringify(match) === JSON.stringify(value);

const ORDER: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

type Test = (candidate: unknown) => boolean;

/** The test one value must pass for a positive op (equals, contains, matches, lt, lte, gt, gte). */
const testOf = (op: string, value: unknown, kind: Seen['kind']): Test => {
  const order = Object.hasOwn(ORDER, op) ? ORDER[op] : undefined;
  if (order !== undefined)
    return (c) => {
      const n = numberOf(c);
      return n !== null && typeof value === 'number' && order(n, value);
    };
  if (kind === 'number') {
    const wanted = numberOf(value);
    return (c) => op === 'equals' && wanted !== null && c === wanted;
  }
  switch (op) {
    case 'equals':
      return kind === 'json' ? (c) => jsonEquals(c, value) : (c) => c === textOf(value);
    case 'contains':
      return (c) =>
        kind === 'json' && Array.isArray(c) ? c.some((e) => jsonEquals(e, value)) : textOf(c).includes(textOf(value));
    case 'matches': {
      const pattern = RE2JS.compile(String(value));
      return (c) => pattern.matcher(textOf(c)).find();
    }
    default:
      return () => false;
  }
};

const NEGATED: Readonly<Record<string, string>> = { not_equals: 'equals', not_contains: 'contains' };

const candidates = (s: Exclude<Seen, { kind: 'missing' }>): unknown[] =>
  s.kind === 'json' || s.kind === 'records' ? s.values : [s.value];

const shorten = (s: string): string => (s.length <= MAX_RECEIVED ? s : `${s.slice(0, MAX_RECEIVED - 1)}…`);

const receivedOf = (s: Seen): string | null => {
  switch (s.kind) {
    case 'missing':
      return null;
    case 'number':
      return String(s.value);
    case 'text':
      return shorten(s.value);
    case 'json':
      return shorten(JSON.stringify(s.multiple ? s.values : s.values[0]) ?? 'null');
    case 'records':
      return shorten(JSON.stringify(s.values));
  }
};

const passes = (a: Assertion, s: Seen): boolean => {
  if (a.op === 'exists') return s.kind !== 'missing';
  if (a.op === 'not_exists') return s.kind === 'missing';
  if (s.kind === 'missing') return false;
  const values = candidates(s);
  const negated = Object.hasOwn(NEGATED, a.op) ? NEGATED[a.op] : undefined;
  if (negated !== undefined) {
    const test = testOf(negated, a.value, s.kind);
    return !values.some(test);
  }
  return values.some(testOf(a.op, a.value, s.kind));
};

/** What an assertion's failure says, e.g. `json $.status equals "ok": got "degraded"`: the source,
 *  its path, the op and its value as JSON, then what was received (quoted for a body or header
 *  text; `nothing` when absent, followed by `why` in parentheses when given). */
export const assertionFailureText = (r: AssertionResult, why?: string): string => {
  const head = [r.source, ...(r.path === undefined ? [] : [r.path]), r.op].join(' ');
  const value = r.value === undefined ? '' : ` ${JSON.stringify(r.value)}`;
  const got =
    r.received === null
      ? `nothing${why === undefined ? '' : ` (${why})`}`
      : r.source === 'body' || r.source === 'header'
        ? JSON.stringify(r.received)
        : r.received;
  return `${head}${value}: got ${got}`;
};

/** The verdict on one assertion and, when it failed, the text of the failure. */
export const judgeAssertion = (
  assertion: Assertion,
  observation: Observation,
): { result: AssertionResult; failure: string | null } => {
  const s = seen(assertion, observation);
  let passed: boolean;
  let broken: string | null = null;
  try {
    passed = passes(assertion, s);
  } catch (error) {
    // A pattern RE2 refuses (saved before the rule, or edited in the store): a failure saying so.
    passed = false;
    broken = `invalid pattern: ${(error as Error).message}`;
  }
  const result: AssertionResult = {
    source: assertion.source,
    ...(assertion.path === undefined ? {} : { path: assertion.path }),
    op: assertion.op,
    ...(assertion.value === undefined ? {} : { value: assertion.value }),
    passed,
    received: receivedOf(s),
  };
  if (passed) return { result, failure: null };
  if (broken !== null) return { result, failure: `${assertionFailureText(result)} (${broken})` };
  return { result, failure: assertionFailureText(result, s.kind === 'missing' ? s.why : undefined) };
};

/** The verdict on one assertion for what a check observed. */
export const evaluateAssertion = (assertion: Assertion, observation: Observation): AssertionResult =>
  judgeAssertion(assertion, observation).result;
