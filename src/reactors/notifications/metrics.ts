import type { ChannelType } from '../../domain/channel.ts';

/** What the notification reactor tells the service's metrics (implemented in src/metrics/; on
 *  `watchlog start`'s projector thread, by messages to the main thread, which serves them). */

/** `sent` the channel accepted it; `failed` it did not, after the tries; `stale` not sent: the
 *  transition or alert was older than the delivery window when the reactor reached it; `quiet`
 *  not sent: inside the channel's quiet period for the monitor; `maintenance` not sent: a
 *  transition while a maintenance window covered the monitor. */
export type DeliveryOutcome = 'sent' | 'failed' | 'stale' | 'quiet' | 'maintenance';

export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['sent', 'failed', 'stale', 'quiet', 'maintenance'];

export interface NotificationMetrics {
  /** One delivery to one channel, and how long its tries took (backoff included). */
  delivered(channelType: ChannelType, outcome: DeliveryOutcome, seconds: number): void;
}

export const NO_NOTIFICATION_METRICS: NotificationMetrics = { delivered: () => undefined };
