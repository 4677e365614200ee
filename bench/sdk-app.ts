import { createRequire } from 'node:module';
import type expressType from 'express';
import { createWatchlog } from '@watchlog/node';

/** The host of the SDK benchmark: a hello-world Express 5 app, bare (`SDK=off`) or with
 *  @watchlog/node's middleware sending to `RECEIVER` (`SDK=on`). Express 5 is the SDK package's
 *  dev dependency (the root's own express is v4). */
const express = createRequire(new URL('../packages/node/package.json', import.meta.url))('express') as typeof expressType;

const app = express();
// Mounted before the middleware, so the bench can read the process's CPU time unrecorded.
app.get('/__cpu', (_req, res) => { res.json(process.cpuUsage()); });
const watchlog = process.env.SDK === 'on'
  ? createWatchlog({ endpoint: process.env.RECEIVER!, apiKey: 'bench-key', serviceName: 'bench', environment: 'production', logger: null })
  : null;
if (watchlog) app.use(watchlog.express());
app.get('/hello/:name', (req, res) => { res.json({ hello: req.params.name }); });

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(async () => {
    const stats = await watchlog?.close();
    if (stats) process.stderr.write(`sdk stats: ${JSON.stringify(stats)}\n`);
    process.exit(0);
  });
  server.closeAllConnections();
});
