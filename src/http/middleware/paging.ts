import type { Context } from 'koa';
import type { Page } from '../../domain/page.ts';

/** A page of a list whose SPEC shape is a bare array (derived sessions, SPEC 4.6): the items are
 *  the body, the paging is in headers. `X-Total-Count` is how many items match; `Link` (RFC 8288)
 *  has `first`, `prev`, `next` and `last` as references relative to the request (the request's
 *  own parameters with another `page`), so they stay right behind a proxy that rewrites the host.
 *  `prev` is absent on the first page, `next` on the last, `last` and `next` when nothing matches. */
export const pageInHeaders = <T>(ctx: Context, { data, pagination }: Page<T>) => {
  const { page, limit, totalItems, totalPage } = pagination;
  const link = (rel: string, n: number) => {
    const params = new URLSearchParams(ctx.querystring);
    params.set('page', String(n));
    params.set('limit', String(limit));
    return `<${ctx.path}?${params.toString()}>; rel="${rel}"`;
  };
  const links = [link('first', 1)];
  if (page > 1) links.push(link('prev', Math.min(page - 1, Math.max(totalPage, 1))));
  if (page < totalPage) links.push(link('next', page + 1));
  if (totalPage > 0) links.push(link('last', totalPage));
  return { status: 200 as const, body: data, headers: { 'X-Total-Count': String(totalItems), Link: links.join(', ') } };
};
