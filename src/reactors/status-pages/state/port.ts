/** The status pages' reactor's own state, committed with its checkpoint (never rebuilt): the
 *  subscriber deliveries it has yet to see settled, and the automatic incidents it opened that
 *  are still open, by monitor (an UP may be reached before the incidents read model shows the
 *  incident its DOWN opened). */

export interface PendingMail {
  delivery_id: string;
  subscriber_id: string;
}

export interface PageEffectsStateWriter {
  /** To be sent; idempotent. */
  queued(mail: PendingMail, position: string): void;
  /** Got through, failed for good, or cancelled. */
  settled(deliveryId: string): void;
  autoOpened(monitorId: string, incidentId: string): void;
  /** The monitor is UP: its automatic incidents were resolved. */
  autoResolved(monitorId: string): void;
}

export interface PageEffectsStateQueries {
  /** What is queued, oldest first. */
  pending(): Promise<PendingMail[]>;
  /** The automatic incidents opened for the monitor and not resolved by this reactor yet. */
  autoOpen(monitorId: string): Promise<string[]>;
}
