import type Router from '@koa/router';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { AppState } from '../state.ts';
import { openApiDocument, type DocumentOptions, type OpenApiDocument } from './document.ts';

/** `GET /v1/openapi.json`: the API's description, built at the first request and kept. Not at
 *  start-up: a codec the walker cannot read fails this endpoint (and its tests), not every
 *  process that serves the API. */
export const openApiRoute = (router: Router<AppState>, options: DocumentOptions): void => {
  let document: OpenApiDocument | undefined;
  router.get('/v1/openapi.json', (ctx) => {
    readQuery(ctx.query, NoParameters);
    document ??= openApiDocument(options);
    ctx.body = document;
  });
};
