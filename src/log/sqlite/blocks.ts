import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';

/** Compressed blocks of the embedded log. Records past the log's recent tail have their payload
 *  (id, data, metadata) moved into a `blocks` row, deflated with the other records of their
 *  stream family near them in the log; the event row keeps its position, stream, revision, type
 *  and the block's id. A block is never changed: a redaction writes a new one under a new id
 *  (AUTOINCREMENT, never reused) and deletes the old, so a block read once may be cached for
 *  as long as anyone likes. */

export interface BlockRecord {
  position: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/* Fields are separated by U+0000 and records by U+0001. JSON.stringify escapes every control
 * character and ids and types are made by this code; a row holding either character anyway
 * (written by hand) is left uncompressed (`compressible`), as is one whose data is empty, which
 * is how a compressed row reads. */
const FIELD = '\u0000';
const RECORD = '\u0001';
const FIELD_BYTE = 0x00;
const RECORD_BYTE = 0x01;

export const compressible = (r: Pick<BlockRecord, 'id' | 'type' | 'data' | 'metadata'>): boolean =>
  r.data !== '' && ![r.id, r.type, r.data, r.metadata].some((s) => s.includes(FIELD) || s.includes(RECORD));

const encode = (records: readonly BlockRecord[]): string =>
  records
    .map((r) => `${r.position}${FIELD}${r.id}${FIELD}${r.type}${FIELD}${r.data}${FIELD}${r.metadata}`)
    .join(RECORD);

/** Level 1: about 8× on audit events already (the demo's, in blocks of 128: 914 → 112 bytes a
 *  record), at half the CPU of the default level, which saves another 13 %. */
const LEVEL = 1;
const deflateAsync = promisify(deflateRaw);

export const compressBlock = (records: readonly BlockRecord[]): Promise<Buffer> =>
  deflateAsync(encode(records), { level: LEVEL });
export const compressBlockSync = (records: readonly BlockRecord[]): Buffer =>
  deflateRawSync(encode(records), { level: LEVEL });

/** A block's records, taken from its inflated bytes when asked for: a buffer and three typed
 *  arrays per block rather than an object and five strings per record. A cached block outlives
 *  the young generation; held as strings, it would be copied out of it and then marked over and
 *  over, where a buffer's bytes are outside the heap. The records made from it die young with
 *  the read that asked for them. */
export class DecodedBlock {
  private constructor(
    private readonly bytes: Buffer,
    /** The records' positions, ascending, and where each record starts and ends in `bytes`. */
    private readonly positions: Float64Array,
    private readonly starts: Uint32Array,
    private readonly ends: Uint32Array,
  ) {}

  static of(bytes: Buffer): DecodedBlock {
    const entries: Array<{ position: number; start: number; end: number }> = [];
    for (let start = 0; start < bytes.length; ) {
      const next = bytes.indexOf(RECORD_BYTE, start);
      const end = next === -1 ? bytes.length : next;
      let position = 0;
      let i = start;
      for (; i < end && bytes[i] !== FIELD_BYTE; i += 1) {
        const digit = bytes[i]! - 0x30;
        if (digit < 0 || digit > 9) break;
        position = position * 10 + digit;
      }
      if (i === start || bytes[i] !== FIELD_BYTE) throw new Error('log.db: a compressed block is malformed');
      entries.push({ position, start, end });
      start = end + 1;
    }
    // Compaction and rewrites write records in position order; the search needs it.
    if (entries.some((e, i) => i > 0 && e.position <= entries[i - 1]!.position))
      entries.sort((x, y) => x.position - y.position);
    return new DecodedBlock(
      bytes,
      Float64Array.from(entries, (e) => e.position),
      Uint32Array.from(entries, (e) => e.start),
      Uint32Array.from(entries, (e) => e.end),
    );
  }

  get size(): number {
    return this.positions.length;
  }

  /** Bytes held (what a cache's budget counts). */
  get byteLength(): number {
    return this.bytes.length;
  }

  get(position: number): BlockRecord | undefined {
    let lo = 0;
    let hi = this.positions.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.positions[mid]!;
      if (at === position) return this.recordAt(mid);
      if (at < position) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Every record, as new objects the caller may change. */
  records(): BlockRecord[] {
    return Array.from(this.positions, (_, i) => this.recordAt(i));
  }

  /** The separators are single bytes below 0x80, which never occur inside a multi-byte UTF-8
   *  character, so a record's bytes decode on their own. */
  private recordAt(i: number): BlockRecord {
    const fields = this.bytes.toString('utf8', this.starts[i]!, this.ends[i]!).split(FIELD);
    if (fields.length !== 5) throw new Error('log.db: a compressed block is malformed');
    return { position: this.positions[i]!, id: fields[1]!, type: fields[2]!, data: fields[3]!, metadata: fields[4]! };
  }
}

export const decompressBlock = (body: Buffer): DecodedBlock => DecodedBlock.of(inflateRawSync(body));

/** Decoded blocks by id, the least recently used dropped past `maxBytes` of inflated payload. A
 *  replay reads the blocks of one stretch of the log at a time (compaction works window by
 *  window), so the budget only has to hold one window's. */
export class BlockCache {
  private readonly blocks = new Map<number, { block: DecodedBlock; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes = 16 * 1024 * 1024) {}

  /** The decoded block, read with `load` (its compressed body, or undefined when the block is
   *  gone) when it is not cached. */
  get(id: number, load: (id: number) => Buffer | undefined): DecodedBlock | undefined {
    const hit = this.blocks.get(id);
    if (hit) {
      this.blocks.delete(id);
      this.blocks.set(id, hit);
      return hit.block;
    }
    const body = load(id);
    if (body === undefined) return undefined;
    const block = decompressBlock(body);
    const bytes = block.byteLength;
    this.blocks.set(id, { block, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.blocks) {
      if (this.bytes <= this.maxBytes || oldest === id) break;
      this.blocks.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return block;
  }
}
