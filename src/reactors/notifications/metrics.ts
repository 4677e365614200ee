/** What the notification reactor tells the service's metrics (implemented in src/compose/; on
 *  `watchlog start`'s projector thread, by messages to the main thread, which serves them). */

/** `sent` the channel accepted it; `failed` it did not, after the retries; `stale` not sent: the
 *  transition or alert was older than the delivery window when the reactor reached it. */
export type DeliveryOutcome = 'sent' | 'failed' | 'stale';

export interface NotificationMetrics {
  /** One delivery to one channel, and how long it took (retries included). */
  delivered(channelType: 'webhook' | 'webpush', outcome: DeliveryOutcome, seconds: number): void;
}

export const NO_NOTIFICATION_METRICS: NotificationMetrics = { delivered: () => undefined };
