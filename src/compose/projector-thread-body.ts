import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { VapidKeys } from '../reactors/notifications/webpush.ts';
import { egressPolicy } from '../checks/egress.ts';
import type { EgressRules } from '../domain/egress-rules.ts';
import type { ChannelType } from '../domain/channel.ts';
import type { CommitStats } from '../log/event-log.ts';
import type { DeliveryOutcome, NotificationMetrics } from '../reactors/notifications/metrics.ts';
import type { SubscriberMailSettings } from '../reactors/status-pages/reactor.ts';
import type { SinkTuning } from '../domain/sink.ts';
import { type ProjectorsPart, startProjectors } from './projectors.ts';
import { openStores, type StoreConfig } from './stores.ts';

/** A part of the projectors on its own thread (`part`: all but the log sinks, or only them): their
 *  synchronous SQLite work (replaying, index updates, commits) never holds up the HTTP event loop
 *  of `watchlog start`, nor the read models' batches the sinks' sockets. The thread opens its own
 *  handles on the same files; the main thread forwards "appended" so live batches start without
 *  polling. */

export interface ProjectorThreadData extends StoreConfig {
  logLevel: string;
  leaseTtlMs: number;
  vapid: VapidKeys;
  vapidSubject: string;
  holder: string;
  part: ProjectorsPart;
  publicUrl: string | null;
  degradedAfter: number;
  sinks: SinkTuning;
  /** The configuration's rules: the thread builds its own policy (agents do not cross threads). */
  egress: EgressRules;
  jwtSecret: string;
  subscriberMail: SubscriberMailSettings | null;
}
export type ToProjectorThread = 'appended' | 'stop';
/** 'stopped', or what the main thread's metrics should count: the thread keeps none itself, the
 *  main thread serves them. */
export type FromProjectorThread =
  | 'stopped'
  | { type: 'delivered'; channelType: ChannelType; outcome: DeliveryOutcome; seconds: number }
  | { type: 'committed'; stats: CommitStats }
  | { type: 'unscavenged'; events: number };

const data = workerData as ProjectorThreadData;
const post = (message: FromProjectorThread) => parentPort!.postMessage(message);
const logger = pino({ level: data.logLevel, base: { service: 'watchlog', mode: 'projector-thread' } });
// The thread's own appends (deliveries and their tries, channels' state) commit here.
const stores = await openStores(data, {
  writerThread: false,
  logger,
  observer: {
    committed: (stats) => post({ type: 'committed', stats }),
    unscavenged: (events) => post({ type: 'unscavenged', events }),
  },
});
const metrics: NotificationMetrics = {
  delivered: (channelType, outcome, seconds) => post({ type: 'delivered', channelType, outcome, seconds }),
};
const projectors = startProjectors(stores, logger, { ...data, egress: egressPolicy(data.egress), metrics });

parentPort!.on('message', (message: ToProjectorThread) => {
  if (message === 'appended') {
    stores.log.notifyAppended();
    return;
  }
  void (async () => {
    await projectors.stop();
    await stores.close();
    post('stopped');
    parentPort!.close();
  })();
});
