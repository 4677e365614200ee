import test from 'ava';
import { Agenda } from 'agenda';
import { ObjectId, type Db } from 'mongodb';
import { MongoJobStore } from '../../src/compose/mongo-job-store.ts';

/** What MongoJobStore asks of its collection, recorded, with the failures a server gives under a
 *  race: no server runs here, so this checks our side of the exchange. The contract suite
 *  (mongo-backend.test.ts) runs the real thing when WATCHLOG_MONGO_URL is set. */
class RecordingCollection {
  readonly calls: Array<{ op: string; args: unknown[] }> = [];
  /** Upserts refused with E11000 before one goes through. */
  refusedUpserts = 0;
  /** Builds of the single-job index refused with E11000 before one goes through. */
  refusedIndexBuilds = 0;
  /** What the duplicate search answers, in turn. */
  duplicateGroups: ObjectId[][][] = [];

  private record(op: string, ...args: unknown[]) {
    this.calls.push({ op, args });
  }

  ops(op: string) {
    return this.calls.filter((c) => c.op === op).map((c) => c.args);
  }

  async createIndex(spec: unknown, options?: { name?: string }) {
    this.record('createIndex', spec, options);
    if (options?.name === 'single_job_name_unique' && this.refusedIndexBuilds > 0) {
      this.refusedIndexBuilds -= 1;
      throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    }
    return options?.name ?? 'index';
  }

  aggregate(pipeline: unknown) {
    this.record('aggregate', pipeline);
    const groups = this.duplicateGroups.shift() ?? [];
    return { toArray: async () => groups.map((ids) => ({ ids })) };
  }

  async deleteMany(filter: unknown) {
    this.record('deleteMany', filter);
    return { acknowledged: true, deletedCount: 1 };
  }

  async findOneAndUpdate(
    filter: unknown,
    update: { $set?: Record<string, unknown>; $setOnInsert?: Record<string, unknown> },
    options: unknown,
  ) {
    this.record('findOneAndUpdate', filter, update, options);
    if (this.refusedUpserts > 0) {
      this.refusedUpserts -= 1;
      throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    }
    return { _id: new ObjectId(), ...update.$setOnInsert, ...update.$set };
  }

  async updateOne(filter: unknown, update: unknown) {
    this.record('updateOne', filter, update);
    return { acknowledged: true, matchedCount: 1, modifiedCount: 1 };
  }

  async countDocuments(filter: unknown) {
    this.record('countDocuments', filter);
    return 1;
  }
}

const storeOn = (collection: RecordingCollection) => {
  // The store only calls db.collection(); a test double of the driver's Db stands in for it.
  const db = { collection: () => collection } as unknown as Db;
  return new MongoJobStore(db, 'agendaJobs');
};

test(
  "connect removes the later copies of a name's 'single' jobs, " +
    'then builds the unique index, again if a copy came meanwhile',
  async (t) => {
    const collection = new RecordingCollection();
    const [a, b, c, x, y] = [new ObjectId(), new ObjectId(), new ObjectId(), new ObjectId(), new ObjectId()];
    // Each group as the server answers it: one name's ids, oldest first.
    collection.duplicateGroups = [[[a, b, c]], [[x, y]]];
    collection.refusedIndexBuilds = 1;
    const store = storeOn(collection);
    await store.connect();
    await store.connect();

    const builds = collection
      .ops('createIndex')
      .filter(([, options]) => (options as { name?: string }).name === 'single_job_name_unique');
    t.is(builds.length, 2, 'built again after the refusal, and not on the second connect');
    t.deepEqual(builds[1], [
      { name: 1 },
      { unique: true, partialFilterExpression: { type: 'single' }, name: 'single_job_name_unique' },
    ]);
    const deletions = collection.ops('deleteMany').map(([filter]) => filter as { _id: { $in: ObjectId[] } });
    t.is(deletions.length, 2);
    t.deepEqual(deletions[0]?._id.$in.map(String), [b, c].map(String), 'the oldest stays');
    t.deepEqual(deletions[1]?._id.$in.map(String), [y].map(String));
    t.deepEqual(collection.ops('aggregate')[0]?.[0], [
      { $match: { type: 'single' } },
      { $sort: { _id: 1 } },
      { $group: { _id: '$name', ids: { $push: '$_id' } } },
      { $match: { 'ids.1': { $exists: true } } },
    ]);
  },
);

test("every() whose insert loses the race to another worker's ends up updating that job, not failing", async (t) => {
  const collection = new RecordingCollection();
  const store = storeOn(collection);
  await store.connect();
  const agenda = new Agenda({ backend: store });
  collection.refusedUpserts = 1;
  const job = await agenda.every(60_000, 'sweep');
  t.truthy(job.attrs._id);
  const upserts = collection.ops('findOneAndUpdate');
  t.is(upserts.length, 2, 'the same upsert once more');
  t.deepEqual(upserts[1]?.[0], { name: 'sweep', type: 'single' });
  t.like(upserts[1]?.[2], { upsert: true });

  collection.refusedUpserts = 1;
  await t.throwsAsync(
    agenda.create('check', { id: 1 }).unique({ 'data.id': 1 }).save(),
    { message: /E11000/ },
    'a duplicate of another kind is still an error',
  );
});

test('updateSchedule $sets only the schedule: lockedAt and the run history are not named', async (t) => {
  const collection = new RecordingCollection();
  const store = storeOn(collection);
  await store.connect();
  const id = new ObjectId();
  const nextRunAt = new Date();
  t.true(await store.updateSchedule(id.toHexString(), { repeatInterval: 30_000, nextRunAt }));
  t.true(await store.updateSchedule(id.toHexString(), { disabled: true }));
  const [first, second] = collection.ops('updateOne');
  t.deepEqual(first, [{ _id: id }, { $set: { repeatInterval: 30_000, nextRunAt } }]);
  t.deepEqual(second, [{ _id: id }, { $set: { disabled: true } }]);

  t.true(await store.updateSchedule(id.toHexString(), {}), 'nothing to change: whether the job exists');
  t.is(collection.ops('countDocuments').length, 1);
  t.false(await store.updateSchedule('not-an-object-id', { disabled: true }));
  t.is(collection.ops('updateOne').length, 2);
});
