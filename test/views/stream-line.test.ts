import test from 'ava';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { streamLine, streamLineText, type TreeLeaf } from '../../src/views/tree/port.ts';
import { tempDir } from '../helpers/server.ts';

/** A stream line written from the log's stored text is the same JSON value as the line
 *  stringified from the parsed record, for records as the embedded log returns them. */

test(
  'a line from the stored text equals the stringified record, ' +
    'with or without recorded_at; a missing record is its leaf alone',
  async (t) => {
    const log = new SqliteEventLog(path.join(tempDir(), 'log.db'));
    t.teardown(() => log.close());
    const data = {
      path: '/api/orders/1',
      status_code: 201,
      '2': 'an integer-like key',
      nested: { b: [1, 'x', null], a: 'é "quoted" \\ \u2028' },
    };
    await log.append(
      'audit-p',
      [
        {
          id: '00000000-0000-4000-8000-000000000001',
          type: 'AuditEventRecorded',
          data,
          metadata: {
            recorded_at: '2026-11-24T10:00:00.000Z',
            actor: 'key:1',
            correlation_id: 'c-1',
            schema_version: 1,
          },
        },
        {
          id: '00000000-0000-4000-8000-000000000002',
          type: 'AuditEventRecorded',
          data: { n: 1 },
          metadata: {} as never,
        },
      ],
      'any',
    );
    const records = await log.readPositions(['1', '2']);
    t.is(records.length, 2);
    for (const [i, record] of records.entries()) {
      t.truthy(record.text, 'the embedded log gives the stored text');
      const leaf: TreeLeaf = {
        index: i,
        position: record.position,
        hash: createHash('sha256').update(String(i)).digest(),
      };
      const fast = streamLineText(leaf, record);
      t.deepEqual(JSON.parse(fast), JSON.parse(JSON.stringify(streamLine(leaf, record))), `record ${i}`);
      const { position, stream, revision, id, type, data: parsed, metadata } = record;
      const parsedOnly = { position, stream, revision, id, type, data: parsed, metadata };
      t.is(streamLineText(leaf, parsedOnly), JSON.stringify(streamLine(leaf, parsedOnly)));
    }
    const missing: TreeLeaf = { index: 7, position: '99', hash: Buffer.alloc(32, 1) };
    t.deepEqual(JSON.parse(streamLineText(missing, undefined)), {
      leaf_index: 7,
      position: '99',
      missing: true,
      leaf_hash: Buffer.alloc(32, 1).toString('base64'),
    });
  },
);
