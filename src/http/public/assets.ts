import { createHash } from 'node:crypto';
import { STATUS_CSS_TEXT } from './assets-css.ts';
import { STATUS_JS_TEXT } from './assets-js.ts';

/** The public pages' stylesheet and live script, served from the page's own origin (the CSP
 *  allows no other) under names that carry a digest of their content: a route can answer them
 *  with STATUS_ASSET_CACHE, and a new build's page names new files. */

export interface StatusAsset {
  /** `/status-assets/status.<digest>.css` */
  readonly path: string;
  readonly body: string;
  readonly type: string;
  readonly etag: string;
}

const assetOf = (name: string, ext: string, body: string, type: string): StatusAsset => {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `/status-assets/${name}.${digest}.${ext}`, body, type, etag: `"${digest}"` };
};

export const STATUS_CSS = assetOf('status', 'css', STATUS_CSS_TEXT, 'text/css; charset=utf-8');
export const STATUS_JS = assetOf('status', 'js', STATUS_JS_TEXT, 'text/javascript; charset=utf-8');

/** By path, for the route that serves `/status-assets/*`. */
export const STATUS_ASSETS: ReadonlyMap<string, StatusAsset> = new Map([
  [STATUS_CSS.path, STATUS_CSS],
  [STATUS_JS.path, STATUS_JS],
]);

export const STATUS_ASSET_CACHE = 'public, max-age=31536000, immutable';

/** What the public pages need and nothing more: their own script, stylesheet, the live script's
 *  requests and the subscription forms' posts to the same origin; no frames, plugins or base
 *  URL. Stricter than DASHBOARD_CSP, which a public page may use as well. */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
