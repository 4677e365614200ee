import test from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { SERVER_THREAD_YOUNG_GENERATION_MB, serverThreadLimits } from '../src/threads.ts';
import { tempDir } from './helpers/server.ts';

test(
  "the server's long-lived threads get a smaller young generation, " +
    'unless the node command line or NODE_OPTIONS sizes it',
  (t) => {
    t.deepEqual(serverThreadLimits([], ''), { maxYoungGenerationSizeMb: SERVER_THREAD_YOUNG_GENERATION_MB });
    t.deepEqual(serverThreadLimits(['--max-old-space-size=512'], '--enable-source-maps'), {
      maxYoungGenerationSizeMb: SERVER_THREAD_YOUNG_GENERATION_MB,
    });
    t.is(
      serverThreadLimits([], '--enable-source-maps --max-semi-space-size=32'),
      undefined,
      "the operator's NODE_OPTIONS are kept",
    );
    t.is(
      serverThreadLimits(['--inspect', '--max_semi_space_size=8'], ''),
      undefined,
      'and their command line, in either spelling',
    );
    t.is(serverThreadLimits(['--min-semi-space-size=4'], ''), undefined);
  },
);

test("the log's writer thread runs with those limits", async (t) => {
  const expected = serverThreadLimits();
  if (expected === undefined) return t.pass('this test process sizes the young generation itself');
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'), { writerThread: true });
  t.teardown(async () => {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await log.append(
    'warm',
    [
      {
        id: randomUUID(),
        type: 'X',
        data: {},
        metadata: { recorded_at: new Date().toISOString(), actor: 'test', correlation_id: 'c', schema_version: 1 },
      },
    ],
    'any',
  );
  t.is(log.writerThread!.resourceLimits?.maxYoungGenerationSizeMb, SERVER_THREAD_YOUNG_GENERATION_MB);
});
