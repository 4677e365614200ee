import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';
import type { Reply } from '../operations/operation.ts';
import { STATUS_PAGE_CSP } from './assets.ts';

/** How every public answer leaves: revalidated with its ETag (304 when the caller has it),
 *  compressed when the caller takes it, under the public pages' strict CSP. */

const REVALIDATE = 'public, no-cache';

type Headers = Readonly<Record<string, string>>;

/** The headers of an answer's three forms. */
interface AnswerHeaders {
  readonly notModified: Headers;
  readonly plain: Headers;
  readonly gzip: Headers | null;
}

export interface CachedAnswer {
  readonly etag: string;
  readonly type: string;
  readonly body: Buffer;
  /** Compressed when worth it (larger than a packet). */
  readonly gzip: Buffer | null;
  /** Its headers with `Cache-Control: public, no-cache`, made once with the answer rather than at
   *  each request (a cached page is answered thousands of times). */
  readonly headers?: AnswerHeaders;
}

const securityHeaders = {
  'Content-Security-Policy': STATUS_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const headersOf = (answer: Omit<CachedAnswer, 'headers'>, cacheControl: string): AnswerHeaders => {
  const notModified = { ...securityHeaders, ETag: answer.etag, 'Cache-Control': cacheControl, Vary: 'Accept-Encoding' };
  const plain = { ...notModified, 'Content-Type': answer.type };
  return { notModified, plain, gzip: answer.gzip === null ? null : { ...plain, 'Content-Encoding': 'gzip' } };
};

/** An answer of this text; its ETag a digest of it unless given. */
export const textAnswer = (text: string, type: string, etag?: string): CachedAnswer => {
  const body = Buffer.from(text, 'utf8');
  const answer = {
    etag: etag ?? `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    type,
    body,
    gzip: body.length > 1400 ? gzipSync(body, { level: 6 }) : null,
  };
  return { ...answer, headers: headersOf(answer, REVALIDATE) };
};

/** Whether an Accept-Encoding takes gzip, by the values seen so far (browsers send a handful,
 *  and at most GZIP_TAKEN_MAX are kept): negotiated once per value rather than parsed again at
 *  each request of a cached page. */
const gzipTaken = new Map<string, boolean>();
const GZIP_TAKEN_MAX = 100;

const takesGzip = (ctx: Context): boolean => {
  const given = ctx.get('Accept-Encoding');
  const known = gzipTaken.get(given);
  if (known !== undefined) return known;
  const taken = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (gzipTaken.size < GZIP_TAKEN_MAX) gzipTaken.set(given, taken);
  return taken;
};

export const replyWith = (
  ctx: Context,
  answer: CachedAnswer,
  cacheControl = REVALIDATE,
): Reply<200, Buffer> | Reply<304, undefined> => {
  const headers =
    cacheControl === REVALIDATE && answer.headers !== undefined ? answer.headers : headersOf(answer, cacheControl);
  const match = ctx.get('If-None-Match');
  if (match !== '' && (match === answer.etag || match.split(/\s*,\s*/).includes(answer.etag)))
    return { status: 304, headers: headers.notModified };
  if (answer.gzip !== null && headers.gzip !== null && takesGzip(ctx))
    return { status: 200, body: answer.gzip, headers: headers.gzip };
  return { status: 200, body: answer.body, headers: headers.plain };
};

/** A page of a subscription's flow (subscription-pages.ts): never stored, since a link's token is
 *  in its address, and under the public pages' CSP (whose form-action lets its button post). */
export const pageReply = <S extends number>(status: S, html: string): Reply<S, string> => ({
  status,
  body: html,
  headers: { ...securityHeaders, 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' },
});
