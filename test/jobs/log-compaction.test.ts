import test from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { logCompactionJob } from '../../src/jobs/log-compaction.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { tempDir } from '../helpers/server.ts';

test(
  'the log-compaction job compresses what is past the tail, ' +
    'says so once, and is quiet when there is nothing to do',
  async (t) => {
    const dir = tempDir();
    const log = new SqliteEventLog(path.join(dir, 'log.db'), {
      compaction: { keepRecent: 5, window: 16, blockRecords: 8 },
    });
    t.teardown(async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const lines: Array<{ msg: string; records?: number; blocks?: number; bytesIn?: number; bytesOut?: number }> = [];
    const logger = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as (typeof lines)[number]);
        },
      },
    );
    const metadata = { recorded_at: new Date(0).toISOString(), actor: 't', correlation_id: 'c', schema_version: 1 };
    for (let n = 0; n < 40; n++)
      await log.append(
        's',
        [{ id: randomUUID(), type: 'X', data: { n, text: 'the same words again '.repeat(20) }, metadata }],
        'any',
      );
    const job = logCompactionJob(log, logger, 1000);
    t.is(job.name, 'log-compaction');
    t.is(job.everyMs, 1000);

    await job.run();
    t.is(lines.length, 1);
    t.like(lines[0], { msg: 'compressed older log records', records: 35, blocks: 5 });
    t.true(lines[0]!.bytesOut! * 5 < lines[0]!.bytesIn!, JSON.stringify(lines[0]));
    await job.run();
    t.is(lines.length, 1, 'nothing new to compress, nothing said');
    t.deepEqual(
      (await log.readAll(null, 100)).map((r) => (r.data as { n: number }).n),
      Array.from({ length: 40 }, (_, n) => n),
    );
  },
);
