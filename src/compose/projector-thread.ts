import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { VapidKeys } from '../reactors/notifications/webpush.ts';
import { egressPolicy } from '../checks/egress.ts';
import type { EgressRules } from '../domain/egress-rules.ts';
import { startProjectors } from './projectors.ts';
import { openStores, type StoreConfig } from './stores.ts';

/** The projectors on their own thread: their synchronous SQLite work (replaying, index updates,
 *  commits) never holds up the HTTP event loop of `watchlog start`. The thread opens its own
 *  handles on the same files; the main thread forwards "appended" so live batches start without
 *  polling. */

export interface ProjectorThreadData extends StoreConfig {
  logLevel: string; leaseTtlMs: number; vapid: VapidKeys; vapidSubject: string; holder: string;
  /** The configuration's rules: the thread builds its own policy (agents do not cross threads). */
  egress: EgressRules;
}
export type ToProjectorThread = 'appended' | 'stop';

const data = workerData as ProjectorThreadData;
const logger = pino({ level: data.logLevel, base: { service: 'watchlog', mode: 'projector-thread' } });
const stores = await openStores(data, { writerThread: false });
const projectors = startProjectors(stores, logger, { ...data, egress: egressPolicy(data.egress) });

parentPort!.on('message', (message: ToProjectorThread) => {
  if (message === 'appended') {
    stores.log.notifyAppended();
    return;
  }
  void (async () => {
    await projectors.stop();
    await stores.close();
    parentPort!.postMessage('stopped');
    parentPort!.close();
  })();
});
