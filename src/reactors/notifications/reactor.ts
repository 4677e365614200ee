import type { Logger } from 'pino';
import { deactivateChannel, degradeChannel, recoverChannel } from '../../commands/channels.ts';
import { cancelDelivery, loadDelivery, scheduleDelivery, skipDelivery } from '../../commands/deliveries.ts';
import type { CommandContext } from '../../commands/handle.ts';
import { deliveryIdOf, inQuietPeriod } from '../../domain/delivery.ts';
import {
  alertNotification,
  certificateNotification,
  transitionNotification,
  type Notification,
} from '../../domain/notification.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import { comparePositions, type EventLog, type RecordedEvent } from '../../log/event-log.ts';
import type { ReadModels } from '../../views/read-models.ts';
import type { Lease } from '../../views/store/port.ts';
import { batchDecoder, caughtUp } from '../../../projections/projector.ts';
import type { Reactor, ReactorStates } from '../port.ts';
import { startAtHeadWhenNew } from '../start-at-head.ts';
import type { NotificationsStateWriter } from './state/port.ts';
import { DEFAULT_RETRY, deliverRound, type RetryOptions } from './attempts.ts';
import { Lanes } from './lanes.ts';
import { NO_NOTIFICATION_METRICS, type NotificationMetrics } from './metrics.ts';
import { sendOnce, type SendOptions } from './send.ts';
import type { VapidKeys } from './webpush.ts';

export type { RetryOptions } from './attempts.ts';

export interface NotifierDeps {
  log: EventLog;
  /** The channels read model: who listens, and where to send. */
  readModels: ReadModels;
  /** Its own state, and the lease it sends under. */
  reactorStates: ReactorStates;
  logger: Logger;
  vapid: VapidKeys;
  vapidSubject: string;
  /** Where deliveries may connect. */
  egress: EgressPolicy;
  /** WATCHLOG_PUBLIC_URL: messages link to the dashboard there. */
  publicUrl: string | null;
  /** Failed deliveries in a row that mark a channel degraded. */
  degradedAfter: number;
  /** Transitions and alerts older than this when the reactor reaches them are recorded, not
   *  sent: a new read store replaying the log must not page anyone about last month. */
  maxAgeMs?: number;
  now?: () => Date;
  retry?: Partial<RetryOptions>;
  /** One try's time limit. */
  timeoutMs?: number;
  /** Where deliveries are counted and timed (default: nowhere). */
  metrics?: NotificationMetrics;
}

/** The reactor's name: its lease, and the checkpoint of its own state. */
export const NOTIFICATIONS = 'notifications';

/** The notification reactor. It follows the log in its own projector (lease `notifications`):
 *  - for each monitor transition, every active channel that takes `healthcheck` events of the
 *    project gets a delivery; for each anomaly alert, every one that takes `alert` events. A
 *    delivery is a stream of its own (`delivery-{id}`, the id derived from the event and the
 *    channel, so a replayed batch finds it): scheduled, or skipped (stale, quiet period);
 *  - scheduled deliveries and retry requests are queued, in its state, committed with its
 *    checkpoint, and handed to the channel's lane, which sends them one at a time with p-retry's
 *    backoff, recording every try in the delivery's stream. Lanes run beside the projector, so a
 *    slow receiver holds up neither the log nor another channel;
 *  - a delivery's last try (or its cancellation) settles it; a channel whose deliveries failed
 *    `degradedAfter` times in a row is marked degraded, and recovers with the next that gets
 *    through.
 *  Before a try the delivery's stream is read again, so a delivery recorded as delivered is never
 *  sent again, across restarts and lease changes. A crash between a try and its record sends it
 *  again (at least once; receivers deduplicate by the notification's id). It is never reset by a
 *  rebuild. */
export const notificationsReactor = (deps: NotifierDeps): Reactor => {
  const store = deps.reactorStates.stores.notifications;
  const reactorState = deps.reactorStates.notifications;
  const channels = { checkpoint: () => deps.readModels.stores.channels.checkpoint() };
  const now = deps.now ?? (() => new Date());
  const maxAgeMs = deps.maxAgeMs ?? 3_600_000;
  const retry = { ...DEFAULT_RETRY, ...deps.retry };
  const metrics = deps.metrics ?? NO_NOTIFICATION_METRICS;
  const send: SendOptions = {
    egress: deps.egress,
    publicUrl: deps.publicUrl,
    vapid: deps.vapid,
    vapidSubject: deps.vapidSubject,
    timeoutMs: deps.timeoutMs ?? 10_000,
  };
  const ctx = (correlationId: string): CommandContext => ({ actor: 'system:notifications', correlationId, now });
  let lease: Lease | null = null;

  /** Sends only while this process holds the lease: after a takeover the new holder sends. */
  const holding = async (): Promise<boolean> => {
    const held = lease === null ? null : await deps.reactorStates.leases.holderOf(NOTIFICATIONS);
    return held !== null && held.holder === lease?.holder && held.expiresAt > Date.now();
  };

  const deliver = async (id: string, signal: AbortSignal): Promise<void> => {
    const { state } = await loadDelivery(deps, id);
    if (state.status !== 'pending' || state.notification === null) return;
    const n = state.notification;
    const row = await deps.readModels.channels.target(state.channelId);
    if (row === null || !row.view.active) {
      await cancelDelivery(deps, id, row === null ? 'channel deleted' : 'channel inactive', ctx(n.id));
      return;
    }
    const log = deps.logger.child({
      delivery_id: id,
      event_id: n.id,
      channel_id: row.id,
      channel_type: row.target.type,
    });
    const started = performance.now();
    await deliverRound({
      deps,
      id,
      state,
      retry,
      signal,
      ctx: ctx(n.id),
      holding,
      send: () => sendOnce(row.target, n, send),
      async recorded(answer, attempt, final) {
        if (answer.gone)
          await deactivateChannel(deps, row.id, `push subscription gone (${answer.status ?? 'no status'})`, ctx(n.id));
        if (!final) {
          log.debug({ attempt, status: answer.status, error: answer.error }, 'notification try failed; trying again');
          return;
        }
        metrics.delivered(row.target.type, answer.ok ? 'sent' : 'failed', (performance.now() - started) / 1000);
        if (answer.ok) log.info({ attempt, status: answer.status }, 'notification delivered');
        else log.warn({ attempt, status: answer.status, error: answer.error }, 'notification not delivered');
      },
    });
  };

  const lanes = new Lanes(deliver, (err, id) =>
    deps.logger.error({ err, delivery_id: id }, 'delivery could not be sent or recorded; trying again'),
  );

  /** What one event of the log asks of the reactor: state to write with the checkpoint, and
   *  deliveries to queue once that is committed. */
  interface Effect {
    write(w: NotificationsStateWriter): void;
    queue: Array<{ channel_id: string; delivery_id: string }>;
  }
  const NONE: Effect = { write: () => undefined, queue: [] };

  /** Per batch: the state the batch has changed so far (not committed yet). */
  interface BatchState {
    downSent: Map<string, string | null>;
    failures: Map<string, number>;
  }

  /** `inMaintenance`: a transition while a maintenance window covered the monitor, which no
   *  channel is sent (each gets a skipped delivery saying so). */
  const dispatch = async (
    recorded: RecordedEvent,
    n: Notification,
    batch: BatchState,
    inMaintenance = false,
  ): Promise<Effect> => {
    // Channels are a projection too: let it reach this event before asking who listens.
    if (!(await caughtUp(channels, recorded.position, 30_000))) {
      throw new Error(`channels read model has not reached position ${recorded.position}`);
    }
    const kind = n.type === 'anomaly.detected' ? 'alert' : 'healthcheck';
    const targets = await deps.readModels.channels.targets(n.project_id, kind);
    const stale = now().getTime() - Date.parse(n.timestamp) > maxAgeMs;
    const writes: Array<(w: NotificationsStateWriter) => void> = [];
    const queue: Effect['queue'] = [];
    for (const { id: channelId, target, view } of targets) {
      const about = {
        delivery_id: deliveryIdOf(n.id, channelId),
        channel_id: channelId,
        channel_type: target.type,
        project_id: n.project_id,
        event_id: n.id,
        notification: n,
      };
      if (inMaintenance) {
        metrics.delivered(target.type, 'maintenance', 0);
        await skipDelivery(
          deps,
          {
            ...about,
            reason: 'maintenance',
            detail:
              `not sent: a maintenance window covered the monitor when it went ` +
              `${n.type === 'monitor.down' ? 'DOWN' : 'UP'} at ${n.timestamp}`,
          },
          ctx(n.id),
        );
        continue;
      }
      if (stale) {
        metrics.delivered(target.type, 'stale', 0);
        await skipDelivery(
          deps,
          {
            ...about,
            reason: 'stale',
            detail:
              `not sent: older than the delivery window (${Math.round(maxAgeMs / 60_000)} min) when it was ` +
              `reached`,
          },
          ctx(n.id),
        );
        continue;
      }
      if (n.type === 'monitor.down') {
        const key = `${channelId}\n${n.monitor.id}`;
        const last = batch.downSent.has(key)
          ? batch.downSent.get(key)!
          : await reactorState.lastDownSent(channelId, n.monitor.id);
        if (inQuietPeriod(n.type, view.quiet_minutes, last, n.timestamp)) {
          metrics.delivered(target.type, 'quiet', 0);
          await skipDelivery(
            deps,
            {
              ...about,
              reason: 'quiet_period',
              detail:
                `not sent: within the channel's quiet period (${view.quiet_minutes} min) after the DOWN sent for ` +
                `this monitor at ${last}`,
            },
            ctx(n.id),
          );
          continue;
        }
        batch.downSent.set(key, n.timestamp);
        writes.push((w) => w.downSent(channelId, n.monitor.id, n.timestamp));
      }
      await scheduleDelivery(deps, about, ctx(n.id));
      writes.push((w) => w.queued(about, recorded.position));
      queue.push(about);
    }
    return {
      write: (w) => {
        for (const write of writes) write(w);
      },
      queue,
    };
  };

  /** A delivery settled: count the channel's failures in a row, and mark it degraded or
   *  recovered when that count crosses the line. */
  const settle = async (
    deliveryId: string,
    channelId: string,
    outcome: 'delivered' | 'failed' | null,
    error: string | null,
    batch: BatchState,
    correlationId: string,
  ): Promise<Effect> => {
    if (outcome === null) return { write: (w) => w.settled(deliveryId), queue: [] };
    const before = batch.failures.get(channelId) ?? (await reactorState.failuresInARow(channelId));
    const after = outcome === 'delivered' ? 0 : before + 1;
    batch.failures.set(channelId, after);
    if (after >= deps.degradedAfter) {
      await degradeChannel(
        deps,
        channelId,
        after,
        `${after} deliveries in a row failed; the last: ${error ?? 'no answer'}`,
        ctx(correlationId),
      );
    } else if (after === 0 && before > 0) {
      await recoverChannel(deps, channelId, ctx(correlationId));
    }
    return {
      write: (w) => {
        w.settled(deliveryId);
        w.failuresInARow(channelId, after);
      },
      queue: [],
    };
  };

  const effectOf = async (
    recorded: RecordedEvent,
    decode: ReturnType<typeof batchDecoder>,
    batch: BatchState,
  ): Promise<Effect> => {
    const event = decode(recorded);
    switch (event.type) {
      case 'MonitorWentDown':
      case 'MonitorCameUp':
        return dispatch(recorded, transitionNotification(recorded.id, event), batch, event.data.in_maintenance);
      case 'CertificateExpiring':
        return dispatch(recorded, certificateNotification(recorded.id, event.data), batch);
      case 'AnomalyDetected':
        return dispatch(recorded, alertNotification(event.data), batch);
      case 'DeliveryRetryRequested': {
        const queued = { delivery_id: event.data.delivery_id, channel_id: event.data.channel_id };
        return { write: (w) => w.queued(queued, recorded.position), queue: [queued] };
      }
      case 'DeliveryAttempted':
        // A status page subscriber's delivery is the status pages' reactor's to settle.
        if (!event.data.final || !('channel_id' in event.data)) return NONE;
        return settle(
          event.data.delivery_id,
          event.data.channel_id,
          event.data.outcome,
          event.data.error,
          batch,
          recorded.metadata.correlation_id,
        );
      case 'DeliveryCancelled':
        if (!('channel_id' in event.data)) return NONE;
        return settle(
          event.data.delivery_id,
          event.data.channel_id,
          null,
          null,
          batch,
          recorded.metadata.correlation_id,
        );
      default:
        return NONE;
    }
  };

  const HANDLED = new Set([
    'MonitorWentDown',
    'MonitorCameUp',
    'CertificateExpiring',
    'AnomalyDetected',
    'DeliveryRetryRequested',
    'DeliveryAttempted',
    'DeliveryCancelled',
  ]);

  return {
    name: NOTIFICATIONS,
    checkpoint: () => store.checkpoint(),
    /** Called each time the lease is taken: the deliveries left queued (by a stop, a crash, the
     *  holder before) are queued again. */
    async migrate(held) {
      await store.migrate(held);
      lease = held;
      // Nothing notifiable comes before a first worker: transitions and alerts are what workers'
      // jobs record.
      await startAtHeadWhenNew(store, deps.log, held);
      for (const pending of await reactorState.pending()) lanes.enqueue(pending.channel_id, pending.delivery_id);
    },
    async process(batch, held, decode = batchDecoder()) {
      if (held) lease = held;
      const done = await store.checkpoint();
      const effects = new Map<RecordedEvent, Effect>();
      const state: BatchState = { downSent: new Map(), failures: new Map() };
      for (const recorded of batch) {
        if (!HANDLED.has(recorded.type) || comparePositions(recorded.position, done) <= 0) continue;
        effects.set(recorded, await effectOf(recorded, decode, state));
      }
      await store.commit(batch, (recorded, writer) => effects.get(recorded)?.write(writer), held);
      for (const effect of effects.values()) for (const d of effect.queue) lanes.enqueue(d.channel_id, d.delivery_id);
    },
    stop: () => lanes.stop(),
  };
};
