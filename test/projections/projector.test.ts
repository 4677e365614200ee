import test from 'ava';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import pino from 'pino';
import { Projector, type Decoder, type ProjectionRunner } from '../../projections/projector.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { comparePositions, type RecordedEvent } from '../../src/log/event-log.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { SqliteLeases, openViewsDatabase } from '../../src/views/store/sqlite.ts';
import type { Lease } from '../../src/views/store/port.ts';
import { eventually, tempDir } from '../helpers/server.ts';

/** A projection whose read model is the list of what it applied, with a checkpoint, that can be
 *  told to fail its next commits. */
class RecordingRunner implements ProjectionRunner {
  applied: string[] = [];
  decoded = new Map<string, DomainEvent>();
  reads = 0;
  failNext = 0;
  constructor(
    readonly name: string,
    public position: string | null = null,
  ) {}
  async checkpoint() {
    return this.position;
  }
  async reset() {
    this.applied = [];
    this.position = null;
  }
  async migrate() {
    // nothing to migrate: the store is made at the schema it is
  }
  async process(batch: readonly RecordedEvent[], _lease?: Lease, decode?: Decoder) {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error(`${this.name} failed on purpose`);
    }
    this.reads += 1;
    for (const e of batch) {
      if (comparePositions(e.position, this.position) <= 0)
        throw new Error(`${this.name} was given ${e.position} again`);
      this.applied.push(e.position);
      this.decoded.set(e.position, decode!(e));
    }
    this.position = batch[batch.length - 1]!.position;
  }
}

const setup = async (t: import('ava').ExecutionContext) => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'events.db'), { pollIntervalMs: 20, batchSize: 25 });
  const views = openViewsDatabase(path.join(dir, 'views.db'));
  t.teardown(async () => {
    await log.close();
    views.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const append = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await log.append(
        `project-${i % 3}`,
        [
          {
            id: randomUUID(),
            type: 'ProjectCreated',
            data: { project_id: randomUUID(), name: `p${i}`, created_at: new Date().toISOString() },
            metadata: {
              recorded_at: new Date().toISOString(),
              actor: 'test',
              correlation_id: randomUUID(),
              schema_version: 1,
            },
          },
        ],
        'any',
      );
    }
  };
  return { log, leases: new SqliteLeases(views), append };
};

test(
  'projections at one position share each batch and its decoding; ' + 'one behind catches up and joins them',
  async (t) => {
    const { log, leases, append } = await setup(t);
    await append(100);
    const head = (await log.headPosition())!;
    const fresh = [new RecordingRunner('a'), new RecordingRunner('b')];
    const behind = new RecordingRunner('c', '60');
    const projector = new Projector(log, [...fresh, behind], leases, pino({ level: 'silent' }), {
      fullBatch: 25,
      liveBatchDelayMs: 5,
    });
    projector.start();
    t.teardown(() => projector.stop());
    await append(30);
    const newHead = (await log.headPosition())!;
    await eventually(async () => ([...fresh, behind].every((r) => r.position === newHead) ? true : undefined));

    const all = Array.from({ length: Number(newHead) }, (_, i) => String(i + 1));
    for (const r of fresh) t.deepEqual(r.applied, all, r.name);
    t.deepEqual(behind.applied, all.slice(60), 'c resumes after its checkpoint');
    // Shared batches: the same decoded object reached every projection that read the event.
    for (const p of all.slice(60)) {
      t.is(fresh[0]!.decoded.get(p), behind.decoded.get(p), `event ${p} was decoded once`);
    }
    t.is(fresh[0]!.reads, fresh[1]!.reads);
    t.true(comparePositions(head, newHead) < 0);
  },
);

test('a failing projection is retried from its checkpoint while the others keep going', async (t) => {
  const { log, leases, append } = await setup(t);
  const steady = new RecordingRunner('steady');
  const flaky = new RecordingRunner('flaky');
  flaky.failNext = 2;
  const projector = new Projector(log, [steady, flaky], leases, pino({ level: 'silent' }), {
    fullBatch: 25,
    liveBatchDelayMs: 5,
  });
  projector.start();
  t.teardown(() => projector.stop());
  await append(40);
  const head = (await log.headPosition())!;
  await eventually(async () => (steady.position === head ? true : undefined));
  await eventually(async () => (flaky.position === head ? true : undefined), 5000);
  t.deepEqual(flaky.applied, steady.applied);
  t.is(flaky.failNext, 0);
});

test('stop releases the leases, so another projector takes the projections at once', async (t) => {
  const { log, leases, append } = await setup(t);
  const runner = new RecordingRunner('only');
  const first = new Projector(log, [runner], leases, pino({ level: 'silent' }), { liveBatchDelayMs: 5 });
  first.start();
  await append(5);
  await eventually(async () => (runner.applied.length === 5 ? true : undefined));
  await first.stop();
  t.truthy(await leases.acquire('only', 'someone-else', 10_000));
  await leases.release('only', 'someone-else');

  const second = new Projector(log, [runner], leases, pino({ level: 'silent' }), { liveBatchDelayMs: 5 });
  second.start();
  t.teardown(() => second.stop());
  await append(5);
  await eventually(async () => (runner.applied.length === 10 ? true : undefined));
  t.deepEqual(
    runner.applied,
    Array.from({ length: 10 }, (_, i) => String(i + 1)),
  );
});

test('a replay of a synchronous store lets timers and messages run between its batches', async (t) => {
  const { log, leases, append } = await setup(t);
  await append(100);
  const runner = new RecordingRunner('a');
  // Set before the replay: due at once, yet only run when the event loop gets a turn.
  let ranAt: number | null = null;
  setTimeout(() => {
    ranAt = runner.applied.length;
  }, 0);
  await new Projector(log, [runner], leases, pino({ level: 'silent' })).catchUp(undefined, { batchSize: 10 });
  t.is(runner.applied.length, 100);
  t.not(ranAt, null);
  t.true(ranAt! < 100, `the timer ran after ${ranAt} of 100 events, before the replay ended`);
});

test('a live projector behind a synchronous store lets timers and sockets run between its batches', async (t) => {
  const { log, leases, append } = await setup(t);
  await append(200);
  const runner = new RecordingRunner('a');
  const projector = new Projector(log, [runner], leases, pino({ level: 'silent' }), { fullBatch: 25 });
  t.teardown(() => projector.stop());
  let ranAt: number | null = null;
  projector.start();
  // Due at once, yet only run when the event loop gets a turn: on a thread it shares with the
  // projector, a reactor's timeout or its destination's answer waits the same way.
  setTimeout(() => {
    ranAt = runner.applied.length;
  }, 0);
  await eventually(async () => (runner.applied.length === 200 ? true : undefined));
  t.not(ranAt, null);
  t.true(ranAt! < 200, `the timer ran after ${ranAt} of 200 events, before the projector caught up`);
});
