import type { Logger } from 'pino';
import { deactivateChannel } from '../../commands/channels.ts';
import { alertNotification, transitionNotification, type Notification } from '../../domain/notification.ts';
import type { ChannelTarget } from '../../domain/channel.ts';
import { comparePositions, type EventLog, type RecordedEvent } from '../../log/event-log.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import { deliverWebhook, type DeliveryOutcome, type WebhookOptions } from './webhook.ts';
import { deliverWebPush, type VapidKeys, type WebPushOptions } from './webpush.ts';
import type { DeliveryRecord } from '../../views/deliveries/port.ts';
import { NO_NOTIFICATION_METRICS, type NotificationMetrics } from './metrics.ts';
import type { ReadModels } from '../../views/read-models.ts';
import { batchDecoder, waitForCheckpoint, type ProjectionRunner } from '../../../projections/projector.ts';

export interface NotifierDeps {
  log: EventLog;
  readModels: ReadModels;
  logger: Logger;
  vapid: VapidKeys;
  vapidSubject: string;
  /** Where deliveries may connect. */
  egress: EgressPolicy;
  /** Transitions and alerts older than this when the reactor reaches them are recorded, not
   *  sent: a new read store replaying the log must not page anyone about last month. */
  maxAgeMs?: number;
  now?: () => Date;
  webhook?: Omit<WebhookOptions, 'egress'>;
  push?: Omit<WebPushOptions, 'subject' | 'egress'>;
  /** Where deliveries are counted and timed (default: nowhere). */
  metrics?: NotificationMetrics;
}

/** The reactor's name: its lease, and the checkpoint of the deliveries it records. */
export const NOTIFICATIONS = 'notifications';

const NOTIFIED = new Set(['MonitorWentDown', 'MonitorCameUp', 'AnomalyDetected']);

/** The notification reactor: for each monitor transition, one delivery to every active channel
 *  of the project that takes `healthcheck` events; for each anomaly alert, one to every active
 *  channel that takes `alert` events. Deliveries are recorded with the reactor's
 *  checkpoint in one commit, after sending: a crash in between resends (at least once; the
 *  payload's `id` is the transition's event id, for receivers to deduplicate), a restart after
 *  it sends nothing again. It runs in its own projector (lease `notifications`), so a slow
 *  webhook never holds up the read models, and it is never reset by a rebuild. */
export const notificationsRunner = (deps: NotifierDeps): ProjectionRunner => {
  const store = deps.readModels.stores.deliveries;
  const channels = { checkpoint: () => deps.readModels.stores.channels.checkpoint() };
  const now = deps.now ?? (() => new Date());
  const maxAgeMs = deps.maxAgeMs ?? 3_600_000;
  const metrics = deps.metrics ?? NO_NOTIFICATION_METRICS;

  const deliver = async (target: ChannelTarget, channelId: string, n: Notification): Promise<DeliveryOutcome> => {
    if (target.type === 'webhook') return deliverWebhook(target, n, { ...deps.webhook, egress: deps.egress });
    const outcome = await deliverWebPush(target.subscription, n, deps.vapid, { ...deps.push, subject: deps.vapidSubject, egress: deps.egress });
    if (outcome.gone) {
      await deactivateChannel(deps, channelId, `push subscription gone (${outcome.status ?? 'no status'})`, {
        actor: 'system:notifications', correlationId: n.id, now,
      });
    }
    return outcome;
  };

  const handle = async (recorded: RecordedEvent, notification: Notification): Promise<DeliveryRecord[]> => {
    // Channels are a projection too: let it reach this transition before asking who listens.
    if (!(await waitForCheckpoint(channels, recorded.position, 30_000))) {
      throw new Error(`channels read model has not reached position ${recorded.position}`);
    }
    const handled = await deps.readModels.deliveries.handled(recorded.id);
    const kind = notification.type === 'anomaly.detected' ? 'alert' : 'healthcheck';
    const targets = (await deps.readModels.channels.targets(notification.project_id, kind)).filter((c) => !handled.has(c.id));
    const stale = now().getTime() - Date.parse(notification.timestamp) > maxAgeMs;
    return Promise.all(targets.map(async ({ id, target }): Promise<DeliveryRecord> => {
      const at = now().toISOString();
      if (stale) {
        metrics.delivered(target.type, 'stale', 0);
        return { event_id: recorded.id, channel_id: id, ok: false, attempts: 0, detail: 'not sent: older than the delivery window', at };
      }
      const started = performance.now();
      const outcome = await deliver(target, id, notification);
      metrics.delivered(target.type, outcome.ok ? 'sent' : 'failed', (performance.now() - started) / 1000);
      const log = deps.logger.child({ event_id: recorded.id, channel_id: id, channel_type: target.type, attempts: outcome.attempts });
      if (outcome.ok) log.info({ status: outcome.status }, 'notification delivered');
      else log.warn({ status: outcome.status, error: outcome.error }, 'notification not delivered');
      return { event_id: recorded.id, channel_id: id, ok: outcome.ok, attempts: outcome.attempts, detail: outcome.ok ? null : outcome.error ?? null, at };
    }));
  };

  return {
    name: NOTIFICATIONS,
    checkpoint: () => store.checkpoint(),
    reset: (lease) => store.reset(lease),
    migrate: (lease) => store.migrate(lease),
    async process(batch, lease, decode = batchDecoder()) {
      const done = await store.checkpoint();
      const records = new Map<RecordedEvent, DeliveryRecord[]>();
      for (const recorded of batch) {
        if (!NOTIFIED.has(recorded.type) || comparePositions(recorded.position, done) <= 0) continue;
        const event = decode(recorded);
        if (event.type === 'AnomalyDetected') records.set(recorded, await handle(recorded, alertNotification(event.data)));
        else if (event.type === 'MonitorWentDown' || event.type === 'MonitorCameUp') {
          records.set(recorded, await handle(recorded, transitionNotification(recorded.id, event)));
        }
      }
      await store.commit(batch, (recorded, writer) => {
        for (const record of records.get(recorded) ?? []) writer.recorded(record);
      }, lease);
    },
  };
};
