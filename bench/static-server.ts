import Koa from 'koa';
import { readFileSync } from 'node:fs';

/** The status page section's baseline: bare Koa answering one file from memory, the exact bytes
 *  watchlog served for the page (STATIC_FILE) and their gzip (STATIC_GZIP, sent when the caller
 *  takes gzip), with the page's ETag (STATIC_ETAG: a matching If-None-Match is 304), measured in
 *  the same run as watchlog so the ratio is what the benchmark reports. */
const body = readFileSync(process.env.STATIC_FILE ?? '');
const gzip = readFileSync(process.env.STATIC_GZIP ?? '');
const etag = process.env.STATIC_ETAG ?? '"static"';

const app = new Koa();
app.use((ctx) => {
  ctx.status = 200;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, no-cache');
  ctx.set('Vary', 'Accept-Encoding');
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'text/html; charset=utf-8';
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = gzip;
  } else ctx.body = body;
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
