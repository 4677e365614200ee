// Run as a child by host-safety.test.ts: records events for an endpoint given on the command
// line and returns without close(); the process must exit on its own.
import { createWatchlog } from '../../src/index.ts';

const watchlog = createWatchlog({
  endpoint: process.argv[2]!,
  apiKey: 'k',
  serviceName: 's',
  environment: 'development',
  // The third event starts a batch: the refused connection leaves a 60 s retry timer behind.
  batchMaxEvents: 3,
  flushIntervalMs: 60_000,
  retryInitialDelayMs: 60_000,
  retryMaxDelayMs: 60_000,
  logger: null,
});
for (let i = 0; i < 3; i++) watchlog.record({ path: `/job/${i}`, method: 'POST' });
process.stdout.write(`pending ${watchlog.stats().pending}\n`);
