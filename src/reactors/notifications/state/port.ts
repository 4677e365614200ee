/** The notification reactor's own state, committed with its checkpoint (it is never rebuilt:
 *  `watchlog rebuild` leaves it alone): the deliveries it has yet to see settled, when each
 *  channel was last sent a DOWN per monitor (the quiet period), and each channel's failed
 *  deliveries in a row (degraded marking). */

export interface PendingDelivery {
  delivery_id: string;
  channel_id: string;
}

export interface NotificationsStateWriter {
  /** To be sent (scheduled, or asked to be sent again); idempotent. */
  queued(delivery: PendingDelivery, position: string): void;
  /** Got through, failed for good, or cancelled. */
  settled(deliveryId: string): void;
  downSent(channelId: string, monitorId: string, at: string): void;
  failuresInARow(channelId: string, count: number): void;
}

export interface NotificationsStateQueries {
  /** What is queued, oldest first. */
  pending(): Promise<PendingDelivery[]>;
  lastDownSent(channelId: string, monitorId: string): Promise<string | null>;
  failuresInARow(channelId: string): Promise<number>;
}
