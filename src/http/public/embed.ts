import { existsSync, readFileSync } from 'node:fs';
import { type CachedAnswer, textAnswer } from './reply.ts';

/** `/embed`: the audit-log viewer (packages/viewer) alone on a page, for a SaaS to frame in its
 *  product with a viewer token (`/embed?token=…`). Its page holds no script or style of its own
 *  inline: `embed.js` takes the token from the address (and takes it out of the address bar and
 *  the history), then loads the viewer. */

const EMBED_SCRIPT = `const params = new URLSearchParams(location.search);
const viewer = document.querySelector('watchlog-audit-log');
const token = params.get('token');
const size = params.get('page_size');
if (token) viewer.setAttribute('token', token);
if (size) viewer.setAttribute('page-size', size);
viewer.setAttribute('api-base', location.origin);
history.replaceState(null, '', location.pathname);
await import('/embed/viewer.js');
`;

const EMBED_CSS = `html { color-scheme: light dark; }
body { margin: 0; padding: 12px; font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; }
`;

/** The page; `built`: whether the viewer's bundle is there to load. */
export const embedPage = (built: boolean): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Audit log</title>
<link rel="stylesheet" href="/embed/embed.css">
${built ? '<script type="module" src="/embed/embed.js"></script>' : ''}
</head>
<body>
${
  built
    ? '<watchlog-audit-log></watchlog-audit-log>'
    : '<p>The audit-log viewer has not been built: run <code>npm run build</code>, then restart watchlog.</p>'
}
</body>
</html>
`;

/** The page's policy: scripts and styles from here only, reads to here only, and framed only by
 *  the origins the token names (none when it names none, or is not a valid token). */
export const embedCsp = (frameAncestors: readonly string[]): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.length === 0 ? "'none'" : frameAncestors.join(' ')}`,
  ].join('; ');

/** The page's files, read once; without a built viewer (no file at `bundle`, or null) only its
 *  stylesheet. */
export const loadEmbedAssets = (bundle: string | null): ReadonlyMap<string, CachedAnswer> => {
  const assets = new Map<string, CachedAnswer>([
    ['embed.css', textAnswer(EMBED_CSS, 'text/css; charset=utf-8')],
    ['embed.js', textAnswer(EMBED_SCRIPT, 'text/javascript; charset=utf-8')],
  ]);
  if (bundle !== null && existsSync(bundle))
    assets.set('viewer.js', textAnswer(readFileSync(bundle, 'utf8'), 'text/javascript; charset=utf-8'));
  else assets.delete('embed.js');
  return assets;
};
