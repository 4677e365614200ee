import * as t from 'io-ts';
import type { ParsedUrlQuery } from 'node:querystring';
import { HttpError } from './errors.ts';

/** Query-string codecs: every value arrives as a string. */

export const IntFromString = (name: string, min: number, max: number) =>
  new t.Type<number, string, unknown>(
    name,
    (u): u is number => Number.isInteger(u),
    (u, c) => {
      if (typeof u !== 'string' || !/^-?\d+$/.test(u)) return t.failure(u, c);
      const n = Number(u);
      return n >= min && n <= max ? t.success(n) : t.failure(u, c);
    },
    String,
  );

/** A parameter repeated (`?a=1&a=2`) is a client error, not a silent pick of one value. */
export const singleValued = (query: ParsedUrlQuery): Record<string, string> => {
  const details: { path: string; message: string }[] = [];
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) details.push({ path: key, message: 'must be given once' });
    else if (value !== undefined) out[key] = value;
  }
  if (details.length > 0) throw new HttpError(400, 'validation_error', 'invalid query', details);
  return out;
};
