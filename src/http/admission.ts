/** At most `limit` pieces of work at once; the others wait their turn, first come first served.
 *  Batch ingest goes through one: each batch in work holds its parsed events and their records
 *  until the group commit, so how many run at once bounds the server's memory; the rest wait
 *  before their bodies are parsed (what has arrived stays in the socket's buffers). */
export class Admission {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  /** `onQueued`: told how many wait, each time that changes. */
  constructor(
    private readonly limit: number,
    private readonly onQueued: (queued: number) => void = () => undefined,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`an admission limit is a positive integer, not ${limit}`);
  }

  /** Pieces of work waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active += 1;
    else {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.onQueued(this.waiting.length);
      });
    }
    try {
      return await work();
    } finally {
      // The turn passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) {
        this.onQueued(this.waiting.length);
        next();
      } else this.active -= 1;
    }
  }
}
