/** The ingest edge's limits (WATCHLOG_BATCH_*, WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS,
 *  WATCHLOG_INGEST_RATE_LIMIT). */
export interface IngestLimits {
  /** Events in one `POST /v1/audit/batch`. */
  readonly batchMaxEvents: number;
  /** The body of one batch. */
  readonly batchBodyLimitBytes: number;
  /** Batches one API process reads, decodes and appends at once; later ones wait their turn. */
  readonly batchConcurrency: number;
  /** How long an idempotency key answers with the event first stored under it. */
  readonly idempotencyWindowMs: number;
  /** Events per second one API key may send to one API process (0: no limit), unless the key
   *  has a limit of its own. */
  readonly ratePerKey: number;
}
