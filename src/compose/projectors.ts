import type { Logger } from 'pino';
import { Projector } from '../../projections/projector.ts';
import { notificationsRunner, type NotifierDeps } from '../reactors/notifications/reactor.ts';
import type { NotificationMetrics } from '../reactors/notifications/metrics.ts';
import { CheckpointSealer, type Witnesses } from '../reactors/checkpoints/sealer.ts';
import { checkpointSigner } from '../domain/checkpoint.ts';
import type { Stores } from './stores.ts';

export interface ProjectorsConfig {
  leaseTtlMs: number;
  vapid: NotifierDeps['vapid'];
  vapidSubject: string;
  /** Where notification deliveries may connect. */
  egress: NotifierDeps['egress'];
  /** Also run the notification reactor (default true). */
  notifications?: boolean;
  /** Tuning of delivery (tests shorten retries and delays). */
  notifier?: Pick<NotifierDeps, 'webhook' | 'push' | 'maxAgeMs' | 'now'>;
  liveBatchDelayMs?: number;
  /** The lease holder id both projectors use (default: a new one). */
  holder?: string;
  /** Where the notification reactor counts its deliveries. */
  metrics?: NotificationMetrics;
  /** The checkpoint reactor: the key's seed (it crosses threads as bytes), the origin, how often
   *  (0: never), and the witnesses. Absent: no checkpoints. */
  checkpoints?: { seed: Uint8Array; logOrigin: string; intervalMs: number; witnesses: Witnesses };
}

export interface Projectors {
  readonly projector: Projector;
  readonly notifier: Projector | null;
  readonly sealer: CheckpointSealer | null;
  stop(): Promise<void>;
}

/** What follows the log on this thread: the projector of every read model, the notification
 *  reactor in a projector of its own (its own lease and checkpoint), so a slow webhook never
 *  holds up the read models, and the checkpoint sealer. */
export const startProjectors = (stores: Pick<Stores, 'log' | 'readModels' | 'runners'>, logger: Logger, config: ProjectorsConfig): Projectors => {
  const { log, readModels, runners } = stores;
  const options = {
    leaseTtlMs: config.leaseTtlMs,
    ...(config.liveBatchDelayMs === undefined ? {} : { liveBatchDelayMs: config.liveBatchDelayMs }),
    ...(config.holder === undefined ? {} : { holder: config.holder }),
  };
  const projector = new Projector(log, runners, readModels.leases, logger, options);
  const notifier = config.notifications === false ? null : new Projector(log, [notificationsRunner({
    log, readModels, logger, vapid: config.vapid, vapidSubject: config.vapidSubject, egress: config.egress, ...config.notifier,
    ...(config.metrics ? { metrics: config.metrics } : {}),
  })], readModels.leases, logger, options);
  const checkpoints = config.checkpoints;
  const sealer = checkpoints === undefined || checkpoints.intervalMs === 0 ? null : new CheckpointSealer({
    log, readModels, leases: readModels.leases, signer: checkpointSigner(checkpoints.logOrigin, checkpoints.seed), logOrigin: checkpoints.logOrigin,
    witnesses: checkpoints.witnesses, egress: config.egress, logger,
  }, { intervalMs: checkpoints.intervalMs, leaseTtlMs: config.leaseTtlMs });
  projector.start();
  notifier?.start();
  sealer?.start();
  return {
    projector,
    notifier,
    sealer,
    async stop() {
      await sealer?.stop();
      await notifier?.stop();
      await projector.stop();
    },
  };
};
