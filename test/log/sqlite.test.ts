import test from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { AppendOutcomeUnknownError } from '../../src/log/event-log.ts';
import { ThreadAppender, type WriterState } from '../../src/log/sqlite/appender.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { serializeAppend } from '../../src/log/sqlite/writer.ts';
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

/** The log with every record compressed into blocks before each read, appendOnce and redaction
 *  (no recent tail kept, blocks of three records): the contract holds of compressed records too. */
const COMPACTING = { keepRecent: 0, window: 8, blockRecords: 3 };
const compactingBeforeUse = (log: SqliteEventLog): SqliteEventLog =>
  new Proxy(log, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (['readStream', 'readAll', 'readPositions', 'appendOnce', 'redact'].includes(String(prop))) {
        return async (...args: unknown[]) => {
          await target.compact();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });

eventLogContract('sqlite (records compressed)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'log.db');
  const fixture = {
    log: compactingBeforeUse(new SqliteEventLog(file, { pollIntervalMs: 20, compaction: COMPACTING })),
    reopen: async () => compactingBeforeUse(new SqliteEventLog(file, { pollIntervalMs: 20, compaction: COMPACTING })),
    cleanup: async () => {
      await fixture.log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
});

const meta = { recorded_at: new Date(0).toISOString(), actor: 't', correlation_id: 'c', schema_version: 1 };

test(
  'sqlite event log: ' + 'notifyAppended wakes a live subscription for an append made through another handle',
  async (t) => {
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
  },
);

test('sqlite event log: concurrent appends share one group commit', async (t) => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      log.append(`s-${i}`, [{ id: randomUUID(), type: 'X', data: {}, metadata: meta }], 'any'),
    ),
  );
  // Positions are consecutive: the 50 appends were written by one transaction in arrival order.
  t.deepEqual(
    results.map((r) => Number(r.position)),
    Array.from({ length: 50 }, (_, i) => Number(results[0]!.position) + i),
  );
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

test(
  'sqlite event log: an event JSON cannot write is a rejection, ' + 'not a throw, and nothing of its call is stored',
  async (t) => {
    const dir = tempDir();
    const log = new SqliteEventLog(path.join(dir, 'log.db'));
    t.teardown(async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const good = () => ({ id: randomUUID(), type: 'X', data: { n: 1 }, metadata: meta });
    const bad = { id: randomUUID(), type: 'X', data: { n: 1n }, metadata: meta };
    let appended: Promise<unknown> | undefined;
    t.notThrows(() => {
      appended = log.append('s', [good(), bad], 'any');
    });
    await t.throwsAsync(appended!, { instanceOf: TypeError });
    let once: Promise<unknown> | undefined;
    t.notThrows(() => {
      once = log.appendOnce(
        [
          { stream: 'k-1', event: good() },
          { stream: 'k-2', event: bad },
        ],
        60_000,
      );
    });
    await t.throwsAsync(once!, { instanceOf: TypeError });
    t.deepEqual(await log.readAll(null, 10), [], 'not even the events before the bad one');
  },
);

test('sqlite event log: trim deletes what maxCount hides, and positions are never reused', async (t) => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  await log.setStreamMaxCount('checks', 2);
  for (let i = 0; i < 4; i += 1)
    await log.append('checks', [{ id: randomUUID(), type: 'X', data: { i }, metadata: meta }], 'any');
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

const ingestEvent = () => ({ id: randomUUID(), type: 'X', data: {}, metadata: meta });

test(
  'sqlite event log: a writer thread that dies is restarted; ' +
    'appends in flight are "outcome unknown", later ones are stored',
  async (t) => {
    const dir = tempDir();
    const states: WriterState[] = [];
    const log = new SqliteEventLog(path.join(dir, 'log.db'), {
      writerThread: true,
      onWriterStateChange: (s) => states.push(s),
    });
    t.teardown(async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await log.append('warm', [ingestEvent()], 'any');
    const appends = Array.from({ length: 3000 }, (_, i) => {
      const event = ingestEvent();
      return log.append(`s-${i % 7}`, [event], 'any').then(
        () => ({ id: event.id, outcome: 'stored' }),
        (error: unknown) => ({ id: event.id, outcome: error }),
      );
    });
    // Let the batch reach the thread, then kill it mid-commit.
    await new Promise((r) => setImmediate(r));
    await log.writerThread!.terminate();
    await new Promise((r) => setImmediate(r));
    t.like(
      log.health(),
      { ok: false, reason: 'log writer thread exited with code 1' },
      'stopped until it runs again (it restarts after 100 ms)',
    );
    const results = await Promise.all(appends);
    t.like(states[0], { running: false });
    const unknown = results.filter((r) => r.outcome instanceof AppendOutcomeUnknownError);
    t.true(unknown.length > 0, 'some appends were in flight when the thread died');
    t.true(
      results.every((r) => r.outcome === 'stored' || r.outcome instanceof AppendOutcomeUnknownError),
      'nothing else: no plain errors',
    );
    // The thread comes back on its own; a new append is stored and health is ok again.
    await log.append('after', [ingestEvent()], 'any');
    t.deepEqual(log.health(), { ok: true });
    t.like(states[states.length - 1], { running: true });
    // Every append reported stored is in the log, once; unknown ones are there or not, never twice.
    const stored = new Map<string, number>();
    for (const e of await log.readAll(null, 10_000)) stored.set(e.id, (stored.get(e.id) ?? 0) + 1);
    t.true(results.filter((r) => r.outcome === 'stored').every((r) => stored.get(r.id) === 1));
    t.true([...stored.values()].every((n) => n === 1));
  },
);

test(
  'sqlite writer thread: appends made while it restarts wait for it, ' +
    'and fail as unavailable (nothing stored) past the wait',
  async (t) => {
    const dir = tempDir();
    const file = path.join(dir, 'log.db');
    const opened = new SqliteEventLog(file); // creates the schema
    t.teardown(async () => {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    });
    for (const [waitMs, expected] of [
      [10_000, 'ok'],
      [1, 'unavailable'],
    ] as const) {
      const appender = new ThreadAppender(file, () => undefined, { restartWaitMs: waitMs });
      await appender.append(serializeAppend('warm', [ingestEvent()], 'any'));
      await appender.thread!.terminate();
      const outcome = await appender.append(serializeAppend(`held-${waitMs}`, [ingestEvent()], 'any'));
      t.is(outcome.ok ? 'ok' : outcome.kind, expected);
      t.is((await opened.readStream(`held-${waitMs}`)).length, expected === 'ok' ? 1 : 0);
      await appender.close();
    }
  },
);
