import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type Position,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { EventMetadata } from '../domain/events.ts';
import { withTimeout } from '../deadline.ts';
import {
  RedactionUnsupportedError,
  WrongExpectedRevisionError,
  comparePositions,
  type AppendResult,
  type CommitObserver,
  type CompactionResult,
  type EventLog,
  type LogHealth,
  type ExpectedRevision,
  type NewEvent,
  type OnceEvent,
  type OnceOutcome,
  type RecordedEvent,
  type Subscription,
} from './event-log.ts';

/** The EventLog port on KurrentDB (and EventStoreDB 21.10+, which speaks the same gRPC API) with
 *  `@kurrent/kurrentdb-client`, the maintained successor of `@eventstore/db-client`.
 *
 *  Positions: a $all position is the pair (commit, prepare); for appends to one stream (all this
 *  service makes) the two are equal, so the port's decimal position is the commit position and
 *  is read back as (p, p). Reads and subscriptions on $all exclude system events server-side. */

const toPosition = (p: string): Position => ({ commit: BigInt(p), prepare: BigInt(p) });

const streamState = (expected: ExpectedRevision): AppendStreamState =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : BigInt(expected);

type Resolved = ResolvedEvent | AllStreamResolvedEvent;

const toRecorded = (resolved: Resolved, namespace: string): RecordedEvent | null => {
  const e = resolved.event;
  if (!e?.isJson || e.type.startsWith('$') || !e.streamId.startsWith(namespace)) return null;
  const position = e.position?.commit ?? resolved.commitPosition;
  if (position === undefined) throw new Error(`event ${e.id} in ${e.streamId} has no position`);
  return {
    stream: e.streamId.slice(namespace.length),
    revision: Number(e.revision),
    position: position.toString(10),
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
  };
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface KurrentEventLogOptions {
  /** Largest batch a subscription delivers. */
  batchSize?: number;
  /** First delay before resubscribing after the subscription drops; doubles up to 30 s. */
  reconnectDelayMs?: number;
  onReconnect?: (error: unknown, delayMs: number) => void;
  /** Prefix of every stream this log writes and reads, so several deployments (or test runs) can
   *  share one KurrentDB; $all reads and subscriptions then filter on it server-side. */
  namespace?: string;
  /** Told the size and time of every append that succeeded (each append is its own write). */
  onCommitted?: CommitObserver;
  /** Told how many events a read skipped because their stream's maxCount hides them: KurrentDB
   *  keeps them in $all until a scavenge. */
  onUnscavenged?: (events: number) => void;
  /** How long a stream's maxCount and last revision are trusted before they are read again. */
  streamLimitsTtlMs?: number;
}

export class KurrentEventLog implements EventLog {
  readonly redacts = false;
  private readonly client: KurrentDBClient;
  private readonly batchSize: number;
  private readonly reconnectDelayMs: number;
  private readonly namespace: string;
  private readonly appendListeners = new Set<() => void>();
  /** Per stream, the first revision its maxCount does not hide (0 when it has no maxCount), and
   *  until when that is trusted. A stale value only hides fewer events: revisions only grow. */
  private readonly visibleFrom = new Map<string, { revision: number; until: number }>();
  private readonly streamLimitsTtlMs: number;

  constructor(
    connectionString: string,
    private readonly options: KurrentEventLogOptions = {},
  ) {
    this.client = KurrentDBClient.connectionString(connectionString);
    this.batchSize = options.batchSize ?? 1000;
    this.reconnectDelayMs = options.reconnectDelayMs ?? 500;
    this.namespace = options.namespace ?? '';
    this.streamLimitsTtlMs = options.streamLimitsTtlMs ?? 30_000;
  }

  private async firstVisibleRevision(stream: string): Promise<number> {
    const known = this.visibleFrom.get(stream);
    if (known && known.until > Date.now()) return known.revision;
    const { metadata } = await this.client.getStreamMetadata(this.namespace + stream);
    let revision = 0;
    if (metadata?.maxCount !== undefined) {
      for await (const last of this.client.readStream(this.namespace + stream, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        if (last.event) revision = Math.max(0, Number(last.event.revision) - metadata.maxCount + 1);
      }
    }
    this.visibleFrom.set(stream, { revision, until: Date.now() + this.streamLimitsTtlMs });
    return revision;
  }

  /** `events` without those their stream's maxCount hides. $all keeps them until the server
   *  scavenges: a replay would otherwise apply every check result ever recorded. */
  private async visible(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    const streams = [...new Set(events.map((e) => e.stream))];
    const from = new Map(await Promise.all(streams.map(async (s) => [s, await this.firstVisibleRevision(s)] as const)));
    const kept = events.filter((e) => e.revision >= from.get(e.stream)!);
    if (kept.length < events.length) this.options.onUnscavenged?.(events.length - kept.length);
    return kept;
  }

  private filter() {
    return this.namespace ? streamNameFilter({ prefixes: [this.namespace] }) : excludeSystemEvents();
  }

  private recorded(resolved: Resolved): RecordedEvent | null {
    return toRecorded(resolved, this.namespace);
  }

  /** Fails when the server has not answered within `timeoutMs`. The read's own `deadline` is not
   *  enough: the client's native bridge does not pass it on, and keeps retrying a server that
   *  accepts connections but never answers. */
  async ping(timeoutMs = 5000): Promise<void> {
    const read = async () => {
      for await (const _ of this.client.readAll({
        maxCount: 1,
        direction: BACKWARDS,
        fromPosition: END,
        deadline: timeoutMs,
      }))
        break;
    };
    await withTimeout(read(), timeoutMs, `no answer within ${timeoutMs} ms`);
  }

  async append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const started = performance.now();
    try {
      const result = await this.client.appendToStream(
        this.namespace + stream,
        events.map((e) =>
          jsonEvent({ id: e.id, type: e.type, data: e.data as Record<string, unknown>, metadata: e.metadata }),
        ),
        { streamState: streamState(expected) },
      );
      if (!result.position) throw new Error(`append to ${stream} returned no position`);
      this.options.onCommitted?.({ appends: 1, events: events.length, seconds: (performance.now() - started) / 1000 });
      for (const listener of this.appendListeners) listener();
      return { revision: Number(result.nextExpectedRevision), position: result.position.commit.toString(10) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual =
          typeof error.actualState === 'bigint' && error.actualState >= 0n ? Number(error.actualState) : 'no_stream';
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      throw error;
    }
  }

  /** One append per item, at the exact revision of its stream's last event (or to a stream that
   *  must not exist yet): KurrentDB refuses the second of two concurrent appends of one key,
   *  which then reads the winner's event as its answer. The revision check is what makes it
   *  atomic; KurrentDB's own deduplication of event ids is best effort with "any". */
  async appendOnce(items: readonly OnceEvent[], withinMs: number): Promise<OnceOutcome[]> {
    return Promise.all(
      items.map(async (item): Promise<OnceOutcome> => {
        for (let attempt = 1; ; attempt += 1) {
          const last = await this.readLast(item.stream);
          if (last && Date.parse(item.event.metadata.recorded_at) - Date.parse(last.metadata.recorded_at) < withinMs) {
            return { replay: true, id: last.id, position: last.position, metadata: last.metadata };
          }
          try {
            const { position } = await this.append(item.stream, [item.event], last ? last.revision : 'no_stream');
            return { replay: false, id: item.event.id, position };
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError) || attempt >= 3) throw error;
          }
        }
      }),
    );
  }

  async readLast(stream: string): Promise<RecordedEvent | null> {
    try {
      for await (const resolved of this.client.readStream(this.namespace + stream, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        const e = this.recorded(resolved);
        if (e) return e;
      }
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  async readStream(
    stream: string,
    options: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const reading = this.client.readStream(this.namespace + stream, {
        direction: FORWARDS,
        fromRevision: options.fromRevision === undefined ? START : BigInt(options.fromRevision),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      for await (const resolved of reading) {
        const e = this.recorded(resolved);
        if (e) out.push(e);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async readAll(after: string | null, maxCount: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from = after;
    // Hidden events are dropped after the read, so a page may come back short: read on from the
    // last position read until the page is full or the log ends.
    for (;;) {
      const page = await this.readPage(from, maxCount);
      if (page.events.length > 0) out.push(...(await this.visible(page.events)));
      if (out.length >= maxCount || page.ended || page.last === null) return out.slice(0, maxCount);
      from = page.last;
    }
  }

  /** Up to `maxCount` events after `after`, hidden ones included, and where the read stopped. */
  private async readPage(
    after: string | null,
    maxCount: number,
  ): Promise<{ events: RecordedEvent[]; last: string | null; ended: boolean }> {
    const events: RecordedEvent[] = [];
    // A read from a position includes the event at it; the port's `after` excludes it.
    const reading = this.client.readAll({
      direction: FORWARDS,
      fromPosition: after === null ? START : toPosition(after),
      maxCount: maxCount + (after === null ? 0 : 1),
      filter: this.filter(),
    });
    let read = 0;
    for await (const resolved of reading) {
      read += 1;
      const e = this.recorded(resolved);
      if (e && e.position !== after) events.push(e);
    }
    const page = events.slice(0, maxCount);
    return {
      events: page,
      last: page[page.length - 1]?.position ?? null,
      ended: read < maxCount + (after === null ? 0 : 1),
    };
  }

  /** One read of $all per position (KurrentDB reads by position, not by a list of them), a
   *  few at a time: a page of a replay costs round trips, not a scan. */
  async readPositions(positions: readonly string[]): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for (let i = 0; i < positions.length; i += 32) {
      const found = await Promise.all(
        positions.slice(i, i + 32).map(async (p) => {
          for await (const resolved of this.client.readAll({
            direction: FORWARDS,
            fromPosition: toPosition(p),
            maxCount: 1,
            filter: this.filter(),
          })) {
            const e = this.recorded(resolved);
            return e !== null && e.position === p ? e : null;
          }
          return null;
        }),
      );
      for (const e of found) if (e !== null) out.push(e);
    }
    return out.sort((x, y) => comparePositions(x.position, y.position));
  }

  async headPosition(): Promise<string | null> {
    const reading = this.client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
      maxCount: 1,
      filter: this.filter(),
    });
    for await (const resolved of reading) {
      const e = this.recorded(resolved);
      if (e) return e.position;
    }
    return null;
  }

  /** Catch-up subscription with a server-side filter; if it drops, it resubscribes from the last
   *  delivered position with exponential backoff. Batches are what the stream has buffered. */
  subscribeAll(after: string | null, maxBatch = this.batchSize): Subscription {
    let position = after;
    let closed = false;
    let current: ReturnType<KurrentDBClient['subscribeToAll']> | null = null;
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        let delay = self.reconnectDelayMs;
        while (!closed) {
          const subscription = self.client.subscribeToAll({
            fromPosition: position === null ? START : toPosition(position),
            filter: self.filter(),
          });
          current = subscription;
          try {
            for await (const first of subscription) {
              const batch: RecordedEvent[] = [];
              let next: AllStreamResolvedEvent | null = first;
              while (next !== null) {
                const e = self.recorded(next);
                if (e) batch.push(e);
                next = batch.length < maxBatch ? (subscription.read() as AllStreamResolvedEvent | null) : null;
              }
              if (batch.length > 0) {
                position = batch[batch.length - 1]!.position;
                const shown = await self.visible(batch);
                if (shown.length > 0) yield shown;
                delay = self.reconnectDelayMs;
              }
              if (closed) break;
            }
            // The server ended the subscription: resubscribe after a pause.
            if (!closed) await sleep(delay);
          } catch (error) {
            if (closed) break;
            self.options.onReconnect?.(error, delay);
            await sleep(delay);
            delay = Math.min(delay * 2, 30_000);
          } finally {
            await subscription.unsubscribe().catch(() => undefined);
          }
        }
      },
      async close() {
        closed = true;
        await current?.unsubscribe().catch(() => undefined);
      },
    };
  }

  async setStreamMaxCount(stream: string, maxCount: number): Promise<void> {
    await this.client.setStreamMetadata(this.namespace + stream, { maxCount });
  }

  /** KurrentDB's events are immutable, and a stream's $maxAge would drop records without the leaf
   *  hashes that keep the projects' trees verifiable. */
  async redact(): Promise<number> {
    throw new RedactionUnsupportedError();
  }

  /** KurrentDB deletes what maxCount hides when it scavenges, on its own schedule. */
  async trim(): Promise<number> {
    return 0;
  }

  /** KurrentDB lays out its own chunks; there is nothing for the client to compress. */
  async compact(): Promise<CompactionResult> {
    return { records: 0, blocks: 0, bytesIn: 0, bytesOut: 0 };
  }

  onAppend(listener: () => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** Appends reach subscriptions through the server, whichever client made them. */
  notifyAppended(): void {
    // nothing to do: subscriptions hear of appends from the server
  }

  /** The client reconnects on its own; an append made while the server is unreachable fails
   *  with the client's error. */
  health(): LogHealth {
    return { ok: true };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
