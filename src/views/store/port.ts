import type { RecordedEvent } from '../../log/event-log.ts';

/** What every read model's store does, whatever the adapter: writers are synchronous "enqueue"
 *  interfaces that a projection calls while its store commits a batch. */

export interface ProjectionStore<W> {
  readonly name: string;
  /** Position of the last event this projection has applied; null before the first. */
  checkpoint(): Promise<string | null>;
  /** Applies a batch and records its last position as the checkpoint, atomically. With a
   *  `leaseHolder`, the commit first checks that this holder still has the projection's lease
   *  and throws LeaseLostError otherwise, so a paused ex-holder can never write. */
  commit(events: readonly RecordedEvent[], apply: (event: RecordedEvent, writer: W) => void, leaseHolder?: string): Promise<void>;
  /** Drops everything the projection built, checkpoint included. */
  reset(): Promise<void>;
}

/** One running projector per projection across all worker processes: a lease in the read store.
 *  Holders are named by `leaseHolderId()`, so a store on this machine can tell when a holder's
 *  process is gone. */
export interface Leases {
  /** Takes or renews the lease on `name` for `holder`; false while another live holder has it. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
  /** Releases every lease `holder` has (a projector thread that died). */
  releaseAll(holder: string): Promise<void>;
  /** Who holds the lease on `name` and until when (epoch ms); null when nobody ever took it or it
   *  was released. A lease past its expiry is held by nobody alive. */
  holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null>;
}

/** A lease holder's id: `host:pid:thread:nonce`. */
export const leaseHolderId = (host: string, pid: number, thread: number, nonce: string): string => `${host}:${pid}:${thread}:${nonce}`;

/** The host and process of a holder id; null for an id of another shape. */
export const holderProcess = (holder: string): { host: string; pid: number } | null => {
  const parts = holder.split(':');
  const pid = Number(parts[1]);
  return parts.length === 4 && parts[0] && Number.isInteger(pid) && pid > 0 ? { host: parts[0], pid } : null;
};

export class LeaseLostError extends Error {
  constructor(readonly projection: string, readonly holder: string) {
    super(`lease on projection ${projection} is no longer held by ${holder}`);
  }
}
