/** Values read from a read model on a hot path (every ingest, every authenticated request),
 *  remembered for `ttlMs` so the read model is read about once per key per ttl. `invalidate`
 *  forgets at once, and a read that began before an invalidation is not remembered, so it cannot
 *  put back what the invalidation dropped. At most `maxEntries` are kept (all are dropped when
 *  full: simple, and the next ttl refills what is in use). */
export class ReadThroughCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private generation = 0;

  constructor(
    /** Reads the value; `previous` is the value remembered last, to reuse what did not change. */
    private readonly read: (key: K, previous: V | undefined) => Promise<V>,
    private readonly options: { ttlMs?: number; maxEntries?: number; remember?: (value: V) => boolean } = {},
  ) {}

  async get(key: K): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const generation = this.generation;
    const value = await this.read(key, hit?.value);
    if (generation !== this.generation) return value;
    if (this.options.remember && !this.options.remember(value)) {
      this.entries.delete(key);
      return value;
    }
    if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.entries.clear();
    this.entries.set(key, { value, expiresAt: now + (this.options.ttlMs ?? 1000) });
    return value;
  }

  /** Forgets one key, or every key. */
  invalidate(key?: K): void {
    this.generation += 1;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
