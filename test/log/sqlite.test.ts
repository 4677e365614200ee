import test from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { eventLogContract } from '../contracts/event-log.ts';
import { tempDir } from '../helpers/server.ts';

for (const writerThread of [false, true]) {
  eventLogContract(writerThread ? 'sqlite (writer thread)' : 'sqlite', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'log.db');
    const fixture = {
      log: new SqliteEventLog(file, { pollIntervalMs: 20, writerThread }),
      reopen: async () => new SqliteEventLog(file, { pollIntervalMs: 20, writerThread }),
      cleanup: async () => {
        await fixture.log.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return fixture;
  });
}

const meta = { recorded_at: new Date(0).toISOString(), actor: 't', correlation_id: 'c', schema_version: 1 };

test('sqlite event log: notifyAppended wakes a live subscription for an append made through another handle', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'log.db');
  // A poll interval far beyond the test's patience: only the wake-up can deliver in time.
  const reader = new SqliteEventLog(file, { pollIntervalMs: 600_000 });
  const writer = new SqliteEventLog(file);
  t.teardown(async () => {
    await reader.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const subscription = reader.subscribeAll(null);
  const first = subscription[Symbol.asyncIterator]().next();
  await new Promise((r) => setTimeout(r, 50));
  const heardByWriter: number[] = [];
  writer.onAppend(() => heardByWriter.push(1));
  await writer.append('s', [{ id: randomUUID(), type: 'X', data: {}, metadata: meta }], 'any');
  t.is(heardByWriter.length, 1);
  reader.notifyAppended();
  const delivered = await Promise.race([first, new Promise<'late'>((r) => setTimeout(() => r('late'), 5000))]);
  t.not(delivered, 'late');
  t.is((delivered as IteratorResult<readonly unknown[]>).value?.length, 1);
  await subscription.close();
});

test('sqlite event log: concurrent appends share one group commit', async (t) => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => log.append(`s-${i}`, [{ id: randomUUID(), type: 'X', data: {}, metadata: meta }], 'any')),
  );
  // Positions are consecutive: the 50 appends were written by one transaction in arrival order.
  t.deepEqual(results.map((r) => Number(r.position)), Array.from({ length: 50 }, (_, i) => Number(results[0]!.position) + i));
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

test('sqlite event log: trim deletes what maxCount hides, and positions are never reused', async (t) => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  await log.setStreamMaxCount('checks', 2);
  for (let i = 0; i < 4; i += 1) await log.append('checks', [{ id: randomUUID(), type: 'X', data: { i }, metadata: meta }], 'any');
  const headBefore = await log.headPosition();
  t.is(await log.trim(), 2);
  t.is((await log.readAll(null, 10)).length, 2);
  const next = await log.append('other', [{ id: randomUUID(), type: 'X', data: {}, metadata: meta }], 'any');
  t.true(BigInt(next.position) > BigInt(headBefore!));
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

test('sqlite event log: close commits appends still queued (writer thread)', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'log.db');
  const log = new SqliteEventLog(file, { writerThread: true });
  const pending = log.append('s', [{ id: randomUUID(), type: 'X', data: { queued: true }, metadata: meta }], 'any');
  await log.close();
  await pending;
  const reopened = new SqliteEventLog(file);
  t.is((await reopened.readStream('s')).length, 1);
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
});
