import type Database from 'better-sqlite3';

/** A row of the events table (schema in writer.ts). */
export interface Row {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  block: number | null;
}

/** A row whose payload is still in it, as compaction reads it. */
export type InlineRow = Omit<Row, 'block'>;

/** The statements that reads, trim, redaction and compaction run on a handle's own connection
 *  (appends commit through the appender's). */
export const prepareLogStatements = (db: Database.Database) => ({
  head: db.prepare<[string], { revision: number | null }>(
    'SELECT MAX(revision) AS revision FROM events WHERE stream = ?',
  ),
  readStream: db.prepare<[string, number, number], Row>(
    'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
  ),
  // Events that their stream's maxCount hides are skipped here, not only once the trim job has
  // deleted them: a replay gives the same result before and after a trim. The probe costs
  // one primary-key lookup per event, and the head revision only for the few capped streams.
  readAll: db.prepare<[number, number], Row>(`SELECT e.* FROM events e WHERE e.position > ? AND NOT EXISTS (
          SELECT 1 FROM stream_settings s WHERE s.stream = e.stream
            AND e.revision <= (SELECT MAX(h.revision) FROM events h WHERE h.stream = e.stream) - s.max_count)
        ORDER BY e.position LIMIT ?`),
  lastPosition: db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
  maxCount: db.prepare<[string], { max_count: number }>('SELECT max_count FROM stream_settings WHERE stream = ?'),
  setMaxCount: db.prepare(
    'INSERT INTO stream_settings (stream, max_count) VALUES (?, ?) ' +
      'ON CONFLICT (stream) DO UPDATE SET max_count = excluded.max_count',
  ),
  trim: db.prepare('DELETE FROM events WHERE stream = ? AND revision <= ?'),
  trimmable: db.prepare<[], { stream: string; max_count: number }>('SELECT stream, max_count FROM stream_settings'),
  redact: db.prepare<[string, string, string, number]>(
    'UPDATE events SET type = ?, data = ?, metadata = ? WHERE position = ?',
  ),
  blockOf: db.prepare<[number], { block: number | null }>('SELECT block FROM events WHERE position = ?'),
  blockBody: db.prepare<[number], { body: Buffer }>('SELECT body FROM blocks WHERE id = ?'),
  insertBlock: db.prepare<[Buffer]>('INSERT INTO blocks (body) VALUES (?)'),
  deleteBlock: db.prepare<[number]>('DELETE FROM blocks WHERE id = ?'),
  moveToBlock: db.prepare<[number, string, number]>('UPDATE events SET block = ?, type = ? WHERE position = ?'),
  compactedThrough: db.prepare<[], { through: number }>('SELECT through FROM compaction WHERE one = 1'),
  setCompactedThrough: db.prepare<[number]>(
    'INSERT INTO compaction (one, through) VALUES (1, ?) ' +
      'ON CONFLICT (one) DO UPDATE SET through = MAX(through, excluded.through)',
  ),
  // Capped streams are left alone: trimming deletes their rows, which would strand their
  // payloads in blocks.
  compactable: db.prepare<
    [number, number],
    InlineRow
  >(`SELECT position, stream, revision, id, type, data, metadata FROM events
        WHERE position > ? AND position <= ? AND block IS NULL
          AND stream NOT IN (SELECT stream FROM stream_settings) ORDER BY position`),
  // Deleted and inserted again rather than updated: SQLite merges the pages a delete leaves
  // nearly empty (and the freed ones go to later appends), but not those an update shrinks.
  uncompacted: db.prepare<[number, string, string, string, string]>(
    'DELETE FROM events WHERE position = ? AND block IS NULL AND id = ? AND type = ? AND data = ? AND metadata = ?',
  ),
  compacted: db.prepare<[number, string, number, string, number]>(
    'INSERT INTO events (position, stream, revision, id, type, data, metadata, block) ' +
      "VALUES (?, ?, ?, '', ?, '', '', ?)",
  ),
});

export type LogStatements = ReturnType<typeof prepareLogStatements>;
