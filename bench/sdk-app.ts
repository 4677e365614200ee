import { createRequire } from 'node:module';
import type expressType from 'express';
import { createWatchlog } from '@watchlog/node';

/** The host of the SDK benchmark: a hello-world Express 5 app, bare (`SDK=off`) or with
 *  @watchlog/node's middleware sending to `RECEIVER` (`SDK=on`). Express 5 is the SDK package's
 *  dev dependency (the root's own express is v4). Both variants run the same code but for the
 *  one `app.use`. */
const express = createRequire(new URL('../packages/node/package.json', import.meta.url))(
  'express',
) as typeof expressType;

const app = express();
const watchlog =
  process.env.SDK === 'on'
    ? createWatchlog({
        endpoint: process.env.RECEIVER!,
        apiKey: 'bench-key',
        serviceName: 'bench',
        environment: 'production',
        logger: null,
      })
    : null;
/** Requests the hello route answered: with the middleware on, each is one event to deliver. */
let handled = 0;

// Mounted before the middleware, so the bench reads them unrecorded: the process's CPU time,
// and, once the load is over, the SDK's counters after a flush.
app.get('/__cpu', (_req, res) => {
  res.json({ ...process.cpuUsage(), handled });
});
app.get('/__flush', async (_req, res) => {
  const flushed = (await watchlog?.flush({ timeoutMs: 30_000 })) ?? true;
  res.json({ flushed, handled, stats: watchlog?.stats() ?? null });
});
if (watchlog) app.use(watchlog.express());
app.get('/hello/:name', (req, res) => {
  handled += 1;
  res.json({ hello: req.params.name });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(async () => {
    const stats = await watchlog?.close();
    if (stats) process.stderr.write(`sdk stats: ${JSON.stringify(stats)}\n`);
    process.exit(0);
  });
  server.closeAllConnections();
});
