import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../state.ts';

/** Browsers may send events from any page (the browser SDK's batches, OpenTelemetry's web
 *  exporters' traces): a key's own `allowed_origins` decide who may use it (403 otherwise).
 *  Preflights are answered here for any origin; they carry no key. */
export const ingestCors = (paths: readonly string[]): Middleware<AppState> => {
  const allow: Middleware<AppState> = cors({
    origin: (ctx) => ctx.get('Origin') || '*',
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type', 'Content-Encoding', 'X-API-Key', 'Idempotency-Key', 'X-Request-ID'],
    exposeHeaders: ['Retry-After', 'Idempotent-Replayed', 'X-Request-Id'],
    maxAge: 600,
  });
  const served = new Set(paths);
  // `/v1/audit` is also read (GET) with a viewer token: that preflight is viewer-cors.ts's.
  const ingesting = (method: string, asked: string) =>
    method === 'POST' || (method === 'OPTIONS' && (asked === '' || asked.toUpperCase() === 'POST'));
  return (ctx, next) =>
    served.has(ctx.path) && ingesting(ctx.method, ctx.get('Access-Control-Request-Method')) ? allow(ctx, next) : next();
};
