import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import type { AppState } from './state.ts';

/** The dashboard's built files (web/dist), read into memory once with their compressed forms:
 *  a few hundred kilobytes, served without touching the disk again. */
export interface Dashboard {
  readonly files: ReadonlyMap<string, DashboardFile>;
}

interface DashboardFile {
  readonly body: Buffer;
  readonly gzip: Buffer | null;
  readonly brotli: Buffer | null;
  readonly type: string;
  readonly etag: string;
  /** Hashed names (under /assets/) never change content: a year, immutable. */
  readonly immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.webmanifest', '.txt', '.map']);

/** No inline script or style element, no third party: what the dashboard needs and nothing else.
 *  `style-src 'self'` still lets scripts set element styles (uPlot sizes its canvas that way). */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const walk = (dir: string, prefix = ''): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full, `${prefix}/${name}`) : [`${prefix}/${name}`];
  });

const loaded = new Map<string, Dashboard>();

/** The built dashboard in `dir`, or null when it has not been built (no index.html). Read once
 *  per process: every app of the process (and a restart of its server) shares it. */
export const loadDashboard = (dir: string): Dashboard | null => {
  const known = loaded.get(dir);
  if (known !== undefined) return known;
  if (!existsSync(path.join(dir, 'index.html'))) return null;
  const dashboard = readDashboard(dir);
  loaded.set(dir, dashboard);
  return dashboard;
};

const readDashboard = (dir: string): Dashboard => {
  const files = new Map<string, DashboardFile>();
  for (const rel of walk(dir)) {
    const ext = path.extname(rel);
    const body = readFileSync(path.join(dir, rel));
    const compress = COMPRESSIBLE.has(ext) && body.length > 512;
    files.set(rel, {
      body,
      gzip: compress ? gzipSync(body, { level: 9 }) : null,
      brotli: compress ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) : null,
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: rel.startsWith('/assets/'),
    });
  }
  return { files };
};

/** Paths the API owns (and the public status pages): never answered with the dashboard. */
const isApiPath = (p: string) =>
  p === '/v1' ||
  p.startsWith('/v1/') ||
  p === '/healthz' ||
  p === '/readyz' ||
  p === '/metrics' ||
  p.startsWith('/status/') ||
  p.startsWith('/status-assets/') ||
  p.startsWith('/badge/') ||
  p === '/embed' ||
  p.startsWith('/embed/');

/** Serves the dashboard at `/`: its files by path, a page of its own at its directory's path
 *  (`/docs`, the API reference: docs/index.html), and index.html for any other GET that asks for
 *  HTML (the client routes: /projects, /p/…/events), so a shared link opens the right screen.
 *  Without a build, `/` says how to make one. */
export const dashboardMiddleware =
  (dashboard: Dashboard | null): Middleware<AppState> =>
  async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) return next();
    const exact =
      dashboard?.files.get(ctx.path) ??
      (path.extname(ctx.path) === '' ? dashboard?.files.get(`${ctx.path.replace(/\/$/, '')}/index.html`) : undefined);
    const wantsPage = exact === undefined && path.extname(ctx.path) === '' && ctx.accepts('html') === 'html';
    const file = exact ?? (wantsPage ? dashboard?.files.get('/index.html') : undefined);
    if (file === undefined) {
      if (dashboard === null && ctx.path === '/') {
        ctx.status = 404;
        ctx.type = 'text/plain';
        ctx.body =
          "The dashboard has not been built: run `npm run build` (the README's `npm start` does), then " +
          'restart watchlog.\n';
        return;
      }
      return next();
    }
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('ETag', file.etag);
    ctx.vary('Accept-Encoding');
    ctx.type = file.type;
    if (ctx.get('If-None-Match') === file.etag) {
      ctx.status = 304;
      return;
    }
    const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
    if (encoding === 'br' && file.brotli !== null) {
      ctx.set('Content-Encoding', 'br');
      ctx.body = file.brotli;
    } else if (encoding === 'gzip' && file.gzip !== null) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzip;
    } else {
      ctx.body = file.body;
    }
  };
