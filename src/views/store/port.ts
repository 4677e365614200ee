import type { RecordedEvent } from '../../log/event-log.ts';

/** What every read model's store does, whatever the adapter: writers are synchronous "enqueue"
 *  interfaces that a projection calls while its store commits a batch. */

export interface ProjectionStore<W> {
  readonly name: string;
  /** Position of the last event this projection has applied; null before the first. */
  checkpoint(): Promise<string | null>;
  /** Applies a batch and records its last position as the checkpoint, atomically. With a
   *  `lease`, the writes are fenced by its token: once a later holder has taken the lease (a
   *  greater token), nothing this holder writes lands (it throws LeaseLostError), even if it
   *  paused past its lease in the middle of the batch. */
  commit(
    events: readonly RecordedEvent[],
    apply: (event: RecordedEvent, writer: W) => void,
    lease?: Lease,
  ): Promise<void>;
  /** Drops everything the projection built, checkpoint included. */
  reset(lease?: Lease): Promise<void>;
  /** Whether what is stored was built by this version of the read model (or nothing is). */
  schemaCurrent(): Promise<boolean>;
  /** Brings the stored read model to this version: builds what is missing, and when another
   *  version built it, drops it so the projector replays the log. Only under the projection's
   *  lease, so that no other process projects into what is being dropped. */
  migrate(lease: Lease): Promise<void>;
}

/** Fault injection for tests: holds a commit where a paused process would be, after its lease
 *  was checked and before it writes (a GC pause, a stopped VM), so a test can let another holder
 *  take the lease meanwhile. */
export interface StoreFaults {
  beforeWrites?(projection: string): Promise<void>;
}

/** A projection's lease as its holder has it: `token` grows each time the lease changes hands,
 *  so the store can refuse the writes of a former holder (a fencing token). */
export interface Lease {
  readonly holder: string;
  readonly token: number;
}

/** One running projector per projection across all worker processes: a lease in the read store.
 *  Holders are named by `leaseHolderId()`, so a store on this machine can tell when a holder's
 *  process is gone. */
export interface Leases {
  /** Takes or renews the lease on `name` for `holder`; null while another live holder has it.
   *  A renewal keeps the token; a takeover (or taking it again after a release) raises it. */
  acquire(name: string, holder: string, ttlMs: number): Promise<Lease | null>;
  release(name: string, holder: string): Promise<void>;
  /** Releases every lease `holder` has (a projector thread that died). */
  releaseAll(holder: string): Promise<void>;
  /** Who holds the lease on `name` and until when (epoch ms); null when nobody ever took it or it
   *  was released. A lease past its expiry is held by nobody alive. */
  holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null>;
}

/** A lease holder's id: `host:pid:thread:nonce`. */
export const leaseHolderId = (host: string, pid: number, thread: number, nonce: string): string =>
  `${host}:${pid}:${thread}:${nonce}`;

/** The host and process of a holder id; null for an id of another shape. */
export const holderProcess = (holder: string): { host: string; pid: number } | null => {
  const parts = holder.split(':');
  const pid = Number(parts[1]);
  return parts.length === 4 && parts[0] && Number.isInteger(pid) && pid > 0 ? { host: parts[0], pid } : null;
};

export class LeaseLostError extends Error {
  constructor(
    readonly projection: string,
    readonly holder: string,
  ) {
    super(`lease on projection ${projection} is no longer held by ${holder}`);
  }
}

/** A read model built by another version, which this process could not migrate: another
 *  process projects it (holds its lease). */
export class SchemaBusyError extends Error {
  constructor(readonly projections: ReadonlyArray<{ name: string; holder: string | null }>) {
    super(
      `read models built by another version of watchlog and projected by a running process: ${projections
        .map((p) => `${p.name} (held by ${p.holder ?? 'nobody'})`)
        .join(', ')}; stop the older workers, then start this one`,
    );
  }
}
