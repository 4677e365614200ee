import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { SqliteEventLog } from '../src/log/sqlite.ts';
import { openStores, type StoreConfig } from '../src/runtime.ts';
import { Projector } from './projector.ts';
import { notificationsRunner } from './notifications.ts';
import type { VapidKeys } from '../src/notify/webpush.ts';

/** The projector on its own thread: its synchronous SQLite work (replaying, index updates,
 *  commits) never holds up the HTTP event loop of `watchlog start`. It opens its own handles on
 *  the same files; the main thread forwards "appended" so live batches start without polling. */

export interface ProjectorThreadData extends StoreConfig { logLevel: string; leaseTtlMs: number; vapid: VapidKeys; vapidSubject: string }
export type ToProjectorThread = 'appended' | 'stop';

const data = workerData as ProjectorThreadData;
const logger = pino({ level: data.logLevel, base: { service: 'watchlog', mode: 'projector-thread' } });
const { log, readModels, runners } = await openStores(data, { writerThread: false });
const projector = new Projector(log, runners, readModels.leases, logger, { leaseTtlMs: data.leaseTtlMs });
// The notification reactor reads the whole log too: here, it stays off the HTTP thread.
const notifier = new Projector(log, [notificationsRunner({
  log, readModels, logger, vapid: data.vapid, vapidSubject: data.vapidSubject,
})], readModels.leases, logger, { leaseTtlMs: data.leaseTtlMs });
projector.start();
notifier.start();

parentPort!.on('message', (message: ToProjectorThread) => {
  if (message === 'appended') {
    if (log instanceof SqliteEventLog) log.notifyAppended();
    return;
  }
  void (async () => {
    await notifier.stop();
    await projector.stop();
    await log.close();
    await readModels.close();
    parentPort!.postMessage('stopped');
    parentPort!.close();
  })();
});
