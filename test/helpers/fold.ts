import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Projection } from '../../projections/projection.ts';
import { bindProjection, type Decoder, type ProjectionRunner } from '../../projections/projector.ts';
import { openMongoReadModels } from '../../src/compose/mongo-read-models.ts';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';
import { decodeEvent, type DomainEvent } from '../../src/domain/events.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { ProjectionStore } from '../../src/views/store/port.ts';
import { oneOfEveryType } from './event-samples.ts';
import { Recorder } from './recorder.ts';
import { tempDir } from './server.ts';

/** Folding domain events through a projection as the projector does: recorded as the log would
 *  record them, decoded by the catalogue, applied by `bindProjection` to the real store, read back
 *  through the read model's queries. Each test gets fresh read models, on SQLite and, when
 *  WATCHLOG_MONGO_URL is set, on MongoDB. */

export interface Folding {
  readonly models: ReadModels;
  readonly runner: ProjectionRunner;
  readonly recorder: Recorder;
  /** Records the events and folds them as one batch; returns the batch. */
  fold(events: readonly DomainEvent[]): Promise<RecordedEvent[]>;
  /** Folds recorded events (again, for a replay) as one batch. */
  foldRecorded(batch: readonly RecordedEvent[]): Promise<void>;
  /** Folds the batch but fails on its last event that the projection handles, after the earlier
   *  ones were applied: what a crash part-way through a batch does. */
  crashPartWay(batch: readonly RecordedEvent[]): Promise<void>;
  /** MongoDB has no transactions: a crash after a batch's writes and before its checkpoint leaves
   *  the checkpoint behind them, which this reproduces. Null on SQLite, where rows and checkpoint
   *  commit together and that state cannot happen. */
  readonly rewindCheckpoint: ((position: string) => Promise<void>) | null;
}

type Body = (t: ExecutionContext, f: Folding) => Promise<void>;

interface Opened {
  models: ReadModels;
  rewind: ((name: string, position: string) => Promise<void>) | null;
  cleanup(): Promise<void>;
}

const openSqlite = async (): Promise<Opened> => {
  const dir = tempDir();
  const models = await openSqliteReadModels(path.join(dir, 'views.db'));
  return {
    models,
    rewind: null,
    cleanup: async () => {
      await models.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const openMongo = (url: string) => async (): Promise<Opened> => {
  const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
  const models = await openMongoReadModels(url, { dbName });
  const client = await new MongoClient(url).connect();
  const checkpoints = client.db(dbName).collection<{ _id: string; position: string }>('checkpoints');
  return {
    models,
    rewind: async (name, position) => {
      await checkpoints.updateOne({ _id: name }, { $set: { position } });
    },
    cleanup: async () => {
      await models.close();
      await client.db(dbName).dropDatabase();
      await client.close();
    },
  };
};

const mongoUrl = process.env.WATCHLOG_MONGO_URL;

/** `it(title, body)` registers the test once per read store for `projection`, folded into the
 *  store `storeOf` picks. */
export const projectionTests = <W>(projection: Projection<W>, storeOf: (models: ReadModels) => ProjectionStore<W>) => {
  const adapters: Array<[string, () => Promise<Opened>]> = [['sqlite', openSqlite]];
  if (mongoUrl === undefined)
    test.skip(`mongo ${projection.name} projection: skipped, WATCHLOG_MONGO_URL is not set`, (t) => t.pass());
  else adapters.push(['mongo', openMongo(mongoUrl)]);
  const handled = new Set<string>(projection.handles);

  const it = (title: string, body: Body): void => {
    for (const [adapter, open] of adapters) {
      test(`${adapter} ${projection.name}: ${title}`, async (t) => {
        const { models, rewind, cleanup } = await open();
        try {
          const runner = bindProjection(projection, storeOf(models));
          const recorder = new Recorder();
          const foldRecorded = (batch: readonly RecordedEvent[]) => runner.process(batch);
          await body(t, {
            models,
            runner,
            recorder,
            foldRecorded,
            fold: async (events) => {
              const batch = recorder.record(events);
              await foldRecorded(batch);
              return batch;
            },
            crashPartWay: async (batch) => {
              const last = batch.findLast((r) => handled.has(r.type));
              if (!last) throw new Error('the batch has no event the projection handles');
              const crashing: Decoder = (r) => {
                if (r === last) throw new Error('crashed part-way');
                return decodeEvent(r.position, r.type, r.data);
              };
              await t.throwsAsync(runner.process(batch, undefined, crashing), { message: 'crashed part-way' });
            },
            rewindCheckpoint: rewind && ((position) => rewind(projection.name, position)),
          });
        } finally {
          await cleanup();
        }
      });
    }
  };
  return Object.assign(it, { handles: projection.handles });
};

export type ProjectionTest = ReturnType<typeof projectionTests>;

/** `others` spread between `events`, every one once, the last one after the last event. */
export const interleave = (events: readonly DomainEvent[], others: readonly DomainEvent[]): DomainEvent[] => {
  const rest = [...others];
  return [...events.flatMap((e) => (rest.length > 1 ? [rest.shift()!, e] : [e])), ...rest];
};

/** What every projection must do with a realistic history of its events: `read` gives exactly
 *  `expected` (a function of the recorder, for rows keyed by the id the log gave an event), however
 *  the history is cut into batches, replayed, or mixed with events the projection ignores. */
export interface Scenario {
  projectId: string;
  events: () => DomainEvent[];
  read: (models: ReadModels) => Promise<unknown>;
  expected: (recorder: Recorder) => unknown;
}

export const scenarioTests = (it: ProjectionTest, s: Scenario): void => {
  it('a realistic history folds into exactly the expected rows; the checkpoint is its last position', async (t, f) => {
    const events = s.events();
    const batch = await f.fold(events);
    t.deepEqual(await s.read(f.models), s.expected(f.recorder));
    t.is(await f.runner.checkpoint(), batch.at(-1)!.position);
  });

  it(
    'events of the types it does not handle, interleaved, change nothing, ' +
      'and the checkpoint still moves past them',
    async (t, f) => {
      const events = s.events();
      const others = oneOfEveryType(s.projectId).filter((e) => !it.handles.includes(e.type));
      t.true(others.length > 0);
      const batch = await f.fold(interleave(events, others));
      t.deepEqual(await s.read(f.models), s.expected(f.recorder));
      t.is(batch.at(-1)!.type, others.at(-1)!.type, 'the batch ends with an event it ignores');
      t.is(await f.runner.checkpoint(), batch.at(-1)!.position);
    },
  );

  it(
    'two batches, a batch that crashed part-way then replayed, ' +
      'and a replay of everything give the rows of one batch',
    async (t, f) => {
      const events = s.events();
      const all = f.recorder.record(events);
      const half = Math.ceil(all.length / 2);
      const [first, second] = [all.slice(0, half), all.slice(half)];
      await f.foldRecorded(first);
      const afterFirst = await s.read(f.models);
      await f.crashPartWay(second);
      t.is(await f.runner.checkpoint(), first.at(-1)!.position, 'a crashed batch does not move the checkpoint');
      t.deepEqual(await s.read(f.models), afterFirst, 'nor leave any of its writes behind');
      await f.foldRecorded(second);
      const expected = s.expected(f.recorder);
      t.deepEqual(await s.read(f.models), expected);
      await f.foldRecorded(all);
      t.deepEqual(await s.read(f.models), expected, 'a replay of what was applied changes nothing');
      t.is(await f.runner.checkpoint(), all.at(-1)!.position);
      if (f.rewindCheckpoint) {
        await f.rewindCheckpoint(first.at(-1)!.position);
        await f.foldRecorded(second);
        t.deepEqual(
          await s.read(f.models),
          expected,
          'writes replayed after a crash before the checkpoint change nothing',
        );
      }
    },
  );
};
