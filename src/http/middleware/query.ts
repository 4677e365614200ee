import * as t from 'io-ts';
import type { ParsedUrlQuery } from 'node:querystring';
import { closed, integerRule, integerSchema } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { decodeOrThrow, validationError } from './errors.ts';

/** Query-string codecs: every value arrives as a string. */

export const IntFromString = (min: number, max: number) =>
  withSchema(
    new t.Type<number, string, unknown>(
      integerRule(min, max),
      (u): u is number => Number.isInteger(u),
      (u, c) => {
        if (typeof u !== 'string' || !/^-?\d+$/.test(u)) return t.failure(u, c);
        const n = Number(u);
        return n >= min && n <= max ? t.success(n) : t.failure(u, c);
      },
      String,
    ),
    integerSchema(min, max),
  );

/** A parameter repeated (`?a=1&a=2`) is a client error, not a silent pick of one value. */
export const singleValued = (query: ParsedUrlQuery): Record<string, string> => {
  const details: { path: string; message: string }[] = [];
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) details.push({ path: key, message: 'must be given once' });
    else if (value !== undefined) out[key] = value;
  }
  if (details.length > 0) throw validationError('query', details);
  return out;
};

/** A route's query parameters, decoded: each given once, each valid, and none unknown (a misspelt
 *  filter such as `projectid` is a 400 naming it, never a filter silently left out). */
const closedQueries = new WeakMap<t.Mixed, t.Mixed>();
export const readQuery = <C extends t.Mixed>(query: ParsedUrlQuery, codec: C): t.TypeOf<C> => {
  let strict = closedQueries.get(codec);
  if (!strict) {
    strict = closed(codec, 'parameter');
    closedQueries.set(codec, strict);
  }
  return decodeOrThrow(strict, singleValued(query), 'query', 'query') as t.TypeOf<C>;
};

/** For routes that take no query parameters. */
export const NoParameters = t.exact(t.type({}));
