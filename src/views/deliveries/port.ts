/** The notification reactor's record of what it delivered (or gave up on), per event and channel. */

export interface DeliveryRecord { event_id: string; channel_id: string; ok: boolean; attempts: number; detail: string | null; at: string }

export interface DeliveriesWriter {
  /** Idempotent per (event, channel). */
  recorded(delivery: DeliveryRecord): void;
}

export interface DeliveriesQueries {
  /** The channels an event was already handled for (delivered, or given up on). */
  handled(eventId: string): Promise<Set<string>>;
  forEvent(eventId: string): Promise<DeliveryRecord[]>;
}
