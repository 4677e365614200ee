import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';
import type { Reply } from '../operations/operation.ts';
import { STATUS_PAGE_CSP } from './assets.ts';

/** How every public answer leaves: revalidated with its ETag (304 when the caller has it),
 *  compressed when the caller takes it, under the public pages' strict CSP. */

const REVALIDATE = 'public, no-cache';

export interface CachedAnswer {
  readonly etag: string;
  readonly type: string;
  readonly body: Buffer;
  /** Compressed when worth it (larger than a packet). */
  readonly gzip: Buffer | null;
}

/** An answer of this text; its ETag a digest of it unless given. */
export const textAnswer = (text: string, type: string, etag?: string): CachedAnswer => {
  const body = Buffer.from(text, 'utf8');
  return {
    etag: etag ?? `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    type,
    body,
    gzip: body.length > 1400 ? gzipSync(body, { level: 6 }) : null,
  };
};

const securityHeaders = {
  'Content-Security-Policy': STATUS_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const replyWith = (
  ctx: Context,
  answer: CachedAnswer,
  cacheControl = REVALIDATE,
): Reply<200, Buffer> | Reply<304, undefined> => {
  const headers: Record<string, string> = {
    ...securityHeaders,
    ETag: answer.etag,
    'Cache-Control': cacheControl,
    Vary: 'Accept-Encoding',
  };
  const match = ctx.get('If-None-Match');
  if (match !== '' && match.split(/\s*,\s*/).includes(answer.etag)) return { status: 304, headers };
  headers['Content-Type'] = answer.type;
  if (answer.gzip !== null && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    headers['Content-Encoding'] = 'gzip';
    return { status: 200, body: answer.gzip, headers };
  }
  return { status: 200, body: answer.body, headers };
};

/** A page of a subscription's flow (subscription-pages.ts): never stored, since a link's token is
 *  in its address, and under the public pages' CSP (whose form-action lets its button post). */
export const pageReply = <S extends number>(status: S, html: string): Reply<S, string> => ({
  status,
  body: html,
  headers: { ...securityHeaders, 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' },
});
