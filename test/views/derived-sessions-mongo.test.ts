import test from 'ava';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { addEvent, sessionTimes, type SessionSpan } from '../../src/domain/sessions.ts';
import { mongoDerivedSessions } from '../../src/views/derived-sessions/mongo.ts';
import { BulkOps, NO_FENCE } from '../../src/views/store/mongo.ts';
import { CrashError, MemoryMongo } from '../helpers/memory-mongo.ts';

/** The MongoDB derived-sessions writer has no transaction: a batch's writes land one by one, and
 *  a crash between any two of them is followed by a replay from the checkpoint, cut into batches
 *  however the projector reads the log then. Run on an in-memory stand-in of the driver (there
 *  is no server here; the contract suite runs the adapter on one when WATCHLOG_MONGO_URL is set),
 *  it must still end with the sessions the domain makes of the events. */

const P = 'c0ffee00-0000-4000-8000-000000000001';
const MIN = 60_000;
const T0 = Date.UTC(2026, 5, 1, 8, 0);

interface LogEvent {
  identifier: string;
  ts: number;
  position: number;
}

/** What MongoProjectionStore.commit does with a batch, without the checkpoint (kept by the test). */
const applyBatch = async (mongo: MemoryMongo, events: readonly LogEvent[]): Promise<void> => {
  const ops = new BulkOps();
  const writer = mongoDerivedSessions.batchWriter()(ops);
  for (const e of events)
    writer.event({ project_id: P, identifier: e.identifier, service_name: 'web' }, e.ts, String(e.position));
  for (const task of ops.deferred) await task(mongo.asDb(), NO_FENCE);
};

/** A batch that crashes after `writes` single writes (null: none); false when it crashed. */
const applyCrashing = async (
  mongo: MemoryMongo,
  events: readonly LogEvent[],
  writes: number | null,
): Promise<boolean> => {
  mongo.crashAfter(writes);
  try {
    await applyBatch(mongo, events);
    return true;
  } catch (error) {
    if (error instanceof CrashError) return false;
    throw error;
  } finally {
    mongo.crashAfter(null);
  }
};

const expectedSessions = (log: readonly LogEvent[], identifier: string) =>
  log
    .filter((e) => e.identifier === identifier)
    .reduce<SessionSpan[]>((spans, e) => addEvent(spans, e.ts), [])
    .reverse()
    .map((span) => ({ project_id: P, identifier, service_name: 'web', ...sessionTimes(span) }));

const listed = async (mongo: MemoryMongo, identifier: string) =>
  (await mongoDerivedSessions.queries(mongo.asDb()).list({ identifier, page: 1, limit: 10_000 }, { all: true })).data;

/** How many single writes `batch` makes after `before`, when nothing crashes. */
const writesOf = async (before: readonly LogEvent[], batch: readonly LogEvent[]): Promise<number> => {
  for (let writes = 0; ; writes += 1) {
    const mongo = new MemoryMongo();
    await applyBatch(mongo, before);
    if (await applyCrashing(mongo, batch, writes)) return writes;
  }
};

/** `identifier`'s event `minute` minutes after T0, at log position `position`. */
const at = (identifier: string, minute: number, position: number): LogEvent => ({
  identifier,
  ts: T0 + minute * MIN,
  position,
});

test(
  'a batch crashed after any one of its writes, ' + 'then replayed, gives the sessions of the events once each',
  async (t) => {
    // ann: sessions at 0-10, 50, 100; the late batch joins 0-10 and 50 (at 30), lengthens 100,
    // starts one at 200 and adds to bob's.
    const log = [
      at('ann', 0, 1),
      at('ann', 10, 2),
      at('ann', 50, 3),
      at('bob', 0, 4),
      at('ann', 100, 5),
      at('ann', 30, 6),
      at('ann', 110, 7),
      at('bob', 20, 8),
      at('ann', 200, 9),
      at('ann', 30, 10),
    ];
    const first = log.slice(0, 5);
    const late = log.slice(5);
    const writes = await writesOf(first, late);
    t.true(writes >= 5, 'heads, sessions, and their redo cleared');
    for (let crashAfter = 0; crashAfter <= writes; crashAfter += 1) {
      const mongo = new MemoryMongo();
      await applyBatch(mongo, first);
      await applyCrashing(mongo, late, crashAfter);
      await applyBatch(mongo, late);
      t.deepEqual(await listed(mongo, 'ann'), expectedSessions(log, 'ann'), `crashed after ${crashAfter} writes`);
      t.deepEqual(await listed(mongo, 'bob'), expectedSessions(log, 'bob'), `crashed after ${crashAfter} writes`);
      t.false(
        mongo.documents('derived_session_heads').some((h) => 'redo' in h),
        'no redo is left',
      );
    }
  },
);

test(
  'however the log is cut into batches, ' +
    "crashed anywhere and replayed from the checkpoint, the sessions are the domain's",
  async (t) => {
    const events = fc.array(
      fc.record({ identifier: fc.constantFrom('ann', 'bob'), minute: fc.integer({ min: 0, max: 600 }) }),
      { minLength: 1, maxLength: 50 },
    );
    // Each step reads a batch from the checkpoint; it may crash after some writes, or lose only
    // its checkpoint (a crash after the last write).
    const steps = fc.array(
      fc.record({
        size: fc.integer({ min: 1, max: 12 }),
        crashAfter: fc.option(fc.integer({ min: 0, max: 30 })),
        checkpointLost: fc.boolean(),
      }),
      { maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(events, steps, async (planned, cuts) => {
        const log = planned.map(
          ({ identifier, minute }, i): LogEvent => ({ identifier, ts: T0 + minute * MIN, position: i + 1 }),
        );
        const mongo = new MemoryMongo();
        let checkpoint = 0;
        for (const { size, crashAfter, checkpointLost } of cuts) {
          if (checkpoint === log.length) break;
          const batch = log.slice(checkpoint, checkpoint + size);
          if ((await applyCrashing(mongo, batch, crashAfter)) && !checkpointLost) checkpoint += batch.length;
        }
        await applyBatch(mongo, log.slice(checkpoint));
        for (const identifier of ['ann', 'bob']) {
          if (!isDeepStrictEqual(await listed(mongo, identifier), expectedSessions(log, identifier))) return false;
        }
        const heads = mongo.documents('derived_session_heads');
        return heads.every((h) => !('redo' in h)) && heads.length === new Set(log.map((e) => e.identifier)).size;
      }),
      { numRuns: 300 },
    );
    t.pass();
  },
);

test(
  'two writers of one batch (a former lease holder finishing it while the new one replays it): ' +
    'whoever writes a head first, each event counts once',
  async (t) => {
    const log = [
      at('ann', 0, 1),
      at('bob', 0, 2),
      at('ann', 50, 3),
      at('ann', 20, 4),
      at('bob', 40, 5),
      at('ann', 100, 6),
      at('ann', 75, 7),
      at('bob', 10, 8),
      at('ann', 130, 9),
    ];
    // Both keys have heads already, so that the batches update them (guarded) rather than insert.
    const [committed, older, newer] = [log.slice(0, 2), log.slice(2, 6), log.slice(2)];
    const committedFirst = async () => {
      const mongo = new MemoryMongo();
      await applyBatch(mongo, committed);
      return mongo;
    };
    const check = (mongo: MemoryMongo, what: string) =>
      Promise.all(
        ['ann', 'bob'].map(async (identifier) => {
          t.deepEqual(await listed(mongo, identifier), expectedSessions(log, identifier), `${what}: ${identifier}`);
        }),
      );
    // The new holder paused anywhere in its batch while the former one wrote all of its own.
    const newerWrites = await writesOf(committed, newer);
    for (let pausedAfter = 0; pausedAfter <= newerWrites; pausedAfter += 1) {
      const mongo = await committedFirst();
      mongo.interruptAfter(pausedAfter, () => applyBatch(mongo, older));
      await applyBatch(mongo, newer);
      await check(mongo, `the new holder paused after ${pausedAfter} writes`);
      t.false(mongo.documents('derived_session_heads').some((h) => 'redo' in h));
    }
    // The former holder paused before its heads took its batch, while the new one wrote its own:
    // the heads it finds moved are read again. (Paused after its heads took it, its session writes
    // are left to the lease's fence, which this stand-in does not have.)
    for (const pausedAfter of [0, 1]) {
      const mongo = await committedFirst();
      mongo.interruptAfter(pausedAfter, () => applyBatch(mongo, newer));
      await applyBatch(mongo, older);
      await check(mongo, `the former holder paused after ${pausedAfter} writes`);
      t.false(mongo.documents('derived_session_heads').some((h) => 'redo' in h));
    }
  },
);
