import type { Logger } from 'pino';
import { Projector } from '../../projections/projector.ts';
import { notificationsReactor, type NotifierDeps } from '../reactors/notifications/reactor.ts';
import type { NotificationMetrics } from '../reactors/notifications/metrics.ts';
import { CheckpointSealer, type Witnesses } from '../reactors/checkpoints/sealer.ts';
import type { Reactor } from '../reactors/port.ts';
import { pageEffectsReactor, type SubscriberMailSettings } from '../reactors/status-pages/reactor.ts';
import { checkpointSigner } from '../domain/checkpoint.ts';
import { DEFAULT_SINK_TUNING, type SinkTuning } from '../domain/sink.ts';
import { SinkSupervisor } from '../reactors/sinks/supervisor.ts';
import type { Stores } from './stores.ts';

export interface ProjectorsConfig {
  leaseTtlMs: number;
  vapid: NotifierDeps['vapid'];
  vapidSubject: string;
  /** Where notification deliveries may connect. */
  egress: NotifierDeps['egress'];
  /** WATCHLOG_PUBLIC_URL, for the dashboard links of messages. */
  publicUrl: string | null;
  /** WATCHLOG_NOTIFY_DEGRADED_AFTER. */
  degradedAfter: number;
  /** How log sinks forward (WATCHLOG_SINK_*). */
  sinks?: SinkTuning;
  /** How often the sinks read model is read for changes (default 1 s). */
  sinkPollMs?: number;
  /** Also run the notification reactor and the status pages' (default true). */
  notifications?: boolean;
  /** Everything but the log sinks, or only them (see `ProjectorThread`); absent: everything. */
  part?: ProjectorsPart;
  /** The deployment's JWT secret, which the links of subscribers' mail are signed with. */
  jwtSecret: string;
  /** How subscribers are mailed; null: not at all (automatic incidents still open). */
  subscriberMail: SubscriberMailSettings | null;
  /** Tuning of delivery (tests shorten retries and delays). */
  notifier?: Pick<NotifierDeps, 'retry' | 'timeoutMs' | 'maxAgeMs' | 'now'>;
  liveBatchDelayMs?: number;
  /** The lease holder id both projectors use (default: a new one). */
  holder?: string;
  /** Where the notification reactor counts its deliveries. */
  metrics?: NotificationMetrics;
  /** The checkpoint reactor: the key's seed (it crosses threads as bytes), the origin, how often
   *  (0: never), and the witnesses. Absent: no checkpoints. */
  checkpoints?: { seed: Uint8Array; logOrigin: string; intervalMs: number; witnesses: Witnesses };
}

/** What a projectors' thread runs. */
export type ProjectorsPart = 'all-but-sinks' | 'sinks';

export interface Projectors {
  /** Null where only the sinks run. */
  readonly projector: Projector | null;
  readonly notifier: Projector<Reactor> | null;
  /** The status pages' reactor (automatic incidents, subscriber mail), beside the notifier. */
  readonly pageEffects: Projector<Reactor> | null;
  readonly sealer: CheckpointSealer | null;
  /** Each active log sink's reactor, in a projector of its own. */
  readonly sinks: SinkSupervisor | null;
  stop(): Promise<void>;
}

/** What follows the log on this thread: the projector of every read model, the notification
 *  reactor in a projector of its own (its own lease and checkpoint, its deliveries in lanes beside
 *  it), so a slow receiver never holds up the read models, and the checkpoint sealer. */
export const startProjectors = (
  stores: Pick<Stores, 'log' | 'readModels' | 'reactorStates' | 'runners'>,
  logger: Logger,
  config: ProjectorsConfig,
): Projectors => {
  const { log, readModels, reactorStates, runners } = stores;
  const options = {
    leaseTtlMs: config.leaseTtlMs,
    ...(config.liveBatchDelayMs === undefined ? {} : { liveBatchDelayMs: config.liveBatchDelayMs }),
    ...(config.holder === undefined ? {} : { holder: config.holder }),
  };
  const onlySinks = config.part === 'sinks';
  const projector = onlySinks ? null : new Projector(log, runners, readModels.leases, logger, options);
  const reactor =
    config.notifications === false || onlySinks
      ? null
      : notificationsReactor({
          log,
          readModels,
          reactorStates,
          logger,
          vapid: config.vapid,
          vapidSubject: config.vapidSubject,
          egress: config.egress,
          publicUrl: config.publicUrl,
          degradedAfter: config.degradedAfter,
          ...config.notifier,
          ...(config.metrics ? { metrics: config.metrics } : {}),
        });
  const notifier = reactor === null ? null : new Projector(log, [reactor], reactorStates.leases, logger, options);
  const pageReactor =
    config.notifications === false || onlySinks
      ? null
      : pageEffectsReactor({
          log,
          readModels,
          reactorStates,
          logger,
          egress: config.egress,
          jwtSecret: config.jwtSecret,
          mail: config.subscriberMail,
          ...config.notifier,
        });
  const pageEffects =
    pageReactor === null ? null : new Projector(log, [pageReactor], reactorStates.leases, logger, options);
  const checkpoints = config.checkpoints;
  const sealer =
    checkpoints === undefined || checkpoints.intervalMs === 0 || onlySinks
      ? null
      : new CheckpointSealer(
          {
            log,
            readModels,
            leases: reactorStates.leases,
            signer: checkpointSigner(checkpoints.logOrigin, checkpoints.seed),
            logOrigin: checkpoints.logOrigin,
            witnesses: checkpoints.witnesses,
            egress: config.egress,
            logger,
          },
          { intervalMs: checkpoints.intervalMs, leaseTtlMs: config.leaseTtlMs },
        );
  const sinks =
    config.notifications === false || config.part === 'all-but-sinks'
      ? null
      : new SinkSupervisor({
          log,
          readModels,
          reactorStates,
          logger,
          egress: config.egress,
          tuning: config.sinks ?? DEFAULT_SINK_TUNING,
          projector: options,
          ...(config.sinkPollMs === undefined ? {} : { pollMs: config.sinkPollMs }),
        });
  projector?.start();
  sinks?.start();
  notifier?.start();
  pageEffects?.start();
  sealer?.start();
  return {
    projector,
    notifier,
    pageEffects,
    sealer,
    sinks,
    async stop() {
      await sealer?.stop();
      await sinks?.stop();
      // Tries in flight are recorded while the lease is still held; then the reactor's batch.
      await reactor?.stop();
      await pageReactor?.stop();
      await notifier?.stop();
      await pageEffects?.stop();
      await projector?.stop();
    },
  };
};
