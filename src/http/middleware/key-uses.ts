import type { Logger } from 'pino';
import type { ActiveKey } from '../../views/access/port.ts';

/** How often a key's use is recorded at most, per API process: `last_used_at` is to the minute. */
export const KEY_USE_INTERVAL_MS = 60_000;
/** Keys remembered before those not used for an interval are forgotten. */
const MAX_REMEMBERED = 10_000;

/** Records keys' uses in the log, throttled: at most one record a minute per key and process,
 *  never on the request's path (the request does not wait for it, and a failed record fails
 *  no request: the next use after it tries again). A use within a minute of the key's
 *  `last_used_at` (from another process) is not recorded either. */
export class KeyUses {
  private readonly last = new Map<string, number>();
  /** Keys whose stream this process has already given its maxCount. */
  private readonly capped = new Set<string>();

  constructor(
    private readonly record: (key: ActiveKey, at: Date, correlationId: string, capped: boolean) => Promise<unknown>,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {}

  used(key: ActiveKey, correlationId: string): void {
    const at = this.now();
    const ms = at.getTime();
    const recorded = Math.max(
      this.last.get(key.id) ?? Number.NEGATIVE_INFINITY,
      key.last_used_at === null ? Number.NEGATIVE_INFINITY : Date.parse(key.last_used_at),
    );
    if (ms - recorded < KEY_USE_INTERVAL_MS) return;
    if (this.last.size >= MAX_REMEMBERED) this.forgetOlderThan(ms - KEY_USE_INTERVAL_MS);
    this.last.set(key.id, ms);
    this.record(key, at, correlationId, this.capped.has(key.id)).then(
      () => this.capped.add(key.id),
      (err: unknown) => {
        if (this.last.get(key.id) === ms) this.last.delete(key.id);
        this.logger.warn({ err, key_id: key.id }, "an API key's use could not be recorded; its next use tries again");
      },
    );
  }

  private forgetOlderThan(ms: number): void {
    for (const [id, at] of this.last) if (at < ms) this.last.delete(id);
  }
}
