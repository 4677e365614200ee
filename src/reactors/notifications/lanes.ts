/** Deliveries queued per channel: each channel's go out one after another, in the order queued
 *  (a monitor's DOWN before its UP, which PagerDuty's trigger and resolve need), and no channel
 *  waits for another: a slow or failing receiver holds up its own queue only. */
export class Lanes {
  private readonly lanes = new Map<string, { queued: string[]; running: Promise<void> }>();
  private stopped = false;
  private readonly aborted = new AbortController();

  /** `work` delivers one; when it throws (the log or the read store unreachable), it is tried
   *  again after a pause that doubles up to 30 s, until it settles or the lanes stop. */
  constructor(
    private readonly work: (id: string, signal: AbortSignal) => Promise<void>,
    private readonly onError: (err: unknown, id: string) => void,
  ) {}

  /** Aborted when the lanes stop: backoff waits end, a try in flight finishes. */
  get signal(): AbortSignal {
    return this.aborted.signal;
  }

  enqueue(channelId: string, id: string): void {
    if (this.stopped) return;
    const lane = this.lanes.get(channelId);
    if (lane) {
      if (!lane.queued.includes(id)) lane.queued.push(id);
      return;
    }
    const created = { queued: [id], running: Promise.resolve() };
    this.lanes.set(channelId, created);
    created.running = this.drain(channelId, created.queued);
  }

  private async drain(channelId: string, queued: string[]): Promise<void> {
    let pauseMs = 1000;
    while (!this.stopped && queued.length > 0) {
      const id = queued.shift()!;
      try {
        await this.work(id, this.aborted.signal);
        pauseMs = 1000;
      } catch (err) {
        if (this.stopped) break;
        this.onError(err, id);
        queued.unshift(id);
        await this.pause(pauseMs);
        pauseMs = Math.min(pauseMs * 2, 30_000);
      }
    }
    this.lanes.delete(channelId);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.aborted.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Stops taking work, ends backoff waits, and waits for the tries in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.aborted.abort(new Error('notifications stopping'));
    await Promise.all([...this.lanes.values()].map((lane) => lane.running));
  }
}
