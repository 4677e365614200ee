/** An event as it waits: serialised once, with its UTF-8 size, so batches are cut to a byte
 *  budget without serialising again. */
export interface Entry {
  json: string;
  bytes: number;
}

export const entryOf = (event: object): Entry => {
  const json = JSON.stringify(event);
  return { json, bytes: new TextEncoder().encode(json).length };
};

/** How many entries from the head fit in one JSON array of at most `maxCount` entries and
 *  `maxBytes` bytes; at least one, so an entry larger than the budget cannot block the queue. */
export const fitting = (entries: readonly Entry[], maxCount: number, maxBytes: number): number => {
  let n = 0;
  let size = 1; // '[', then each entry with its ',' or ']'
  for (const e of entries) {
    if (n === maxCount || (n > 0 && size + e.bytes + 1 > maxBytes)) break;
    size += e.bytes + 1;
    n += 1;
  }
  return n;
};

export const bodyOf = (batch: readonly Entry[]): string => `[${batch.map((e) => e.json).join(',')}]`;

export interface BoundedQueue {
  readonly length: number;
  /** Events dropped so far, oldest first, to stay within capacity. */
  readonly dropped: number;
  push(entry: Entry): void;
  /** Puts entries back at the head, in order (a delivery that could not leave). */
  putBack(entries: readonly Entry[]): void;
  /** Removes and returns the head's entries that fit in one body (see `fitting`). */
  take(maxCount: number, maxBytes: number): Entry[];
}

/** Events waiting to be sent. Past its capacity the oldest goes: under a long outage the most
 *  recent calls are the useful ones. */
export const boundedQueue = (capacity: number): BoundedQueue => {
  const entries: Entry[] = [];
  let dropped = 0;
  const trim = () => {
    const over = entries.length - capacity;
    if (over > 0) {
      entries.splice(0, over);
      dropped += over;
    }
  };
  return {
    get length() {
      return entries.length;
    },
    get dropped() {
      return dropped;
    },
    push(entry) {
      entries.push(entry);
      trim();
    },
    putBack(back) {
      entries.unshift(...back);
      trim();
    },
    take: (maxCount, maxBytes) => entries.splice(0, fitting(entries, maxCount, maxBytes)),
  };
};
