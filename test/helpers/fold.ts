import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Projection } from '../../projections/projection.ts';
import { bindProjection, type Decoder, type ProjectionRunner } from '../../projections/projector.ts';
import { openMongoReadModels } from '../../src/compose/mongo-read-models.ts';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';
import { decodeEvent, type DomainEvent, type EventData, type EventType } from '../../src/domain/events.ts';
import * as streams from '../../src/domain/streams.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { ProjectionStore } from '../../src/views/store/port.ts';
import { tempDir } from './server.ts';

/** Folding domain events through a projection as the projector does: recorded as the log would
 *  record them, decoded by the catalogue, applied by `bindProjection` to the real store, read back
 *  through the read model's queries. Each test gets fresh read models, on SQLite and, when
 *  WATCHLOG_MONGO_URL is set, on MongoDB. */

const streamOf = (e: DomainEvent): string => {
  switch (e.type) {
    case 'ProjectCreated':
    case 'ApiKeyIssued':
    case 'ApiKeyRestricted':
    case 'ApiKeyRevoked':
    case 'MaskingRulesSet':
    case 'RetentionSet':
    case 'RetentionApplied':
    case 'ErasureRequested':
    case 'IdentifierErased':
      return streams.projectStream(e.data.project_id);
    case 'RecordRedacted':
      return streams.auditStream(e.data.project_id);
    case 'UserRegistered':
    case 'UserAccessChanged':
    case 'UserDisabled':
    case 'UserEnabled':
    case 'UserPasswordChanged':
    case 'UserPasswordRehashed':
      return streams.userStream(e.data.user_id);
    case 'AuditEventRecorded':
      return streams.auditStream(e.data.project_id);
    case 'CheckRecorded':
      return streams.checksStream(e.data.monitor_id);
    case 'MonitorCreated':
    case 'MonitorUpdated':
    case 'MonitorDeleted':
    case 'MonitorStatusEstablished':
    case 'MonitorWentDown':
    case 'MonitorCameUp':
      return streams.monitorStream(e.data.monitor_id);
    case 'ChannelCreated':
    case 'ChannelUpdated':
    case 'ChannelDeleted':
    case 'ChannelDeactivated':
    case 'ChannelDegraded':
    case 'ChannelRecovered':
      return streams.channelStream(e.data.channel_id);
    case 'DeliveryScheduled':
    case 'DeliverySkipped':
    case 'DeliveryAttempted':
    case 'DeliveryRetryRequested':
    case 'DeliveryCancelled':
      return streams.deliveryStream(e.data.delivery_id);
    case 'AnomalyDetected':
    case 'AnomalyCleared':
    case 'AnomalySettingsUpdated':
      return streams.anomaliesStream(e.data.project_id);
    case 'CheckpointSigned':
      return streams.checkpointsStream(e.data.project_id);
  }
};

/** Gives domain events what appending them would: increasing positions, a stream and its next
 *  revision, an id and metadata. Remembers which record each event became. */
export class Recorder {
  private position = 0;
  private readonly revisions = new Map<string, number>();
  private readonly records = new Map<DomainEvent, RecordedEvent>();

  record(events: readonly DomainEvent[]): RecordedEvent[] {
    return events.map((event) => {
      const stream = streamOf(event);
      const revision = (this.revisions.get(stream) ?? -1) + 1;
      this.revisions.set(stream, revision);
      this.position += 1;
      // A copy through JSON, as the log stores it: the fold must not depend on object identity.
      const recorded: RecordedEvent = {
        id: randomUUID(),
        type: event.type,
        data: JSON.parse(JSON.stringify(event.data)) as unknown,
        stream,
        revision,
        position: String(this.position),
        metadata: {
          recorded_at: new Date(Date.UTC(2026, 0, 1) + this.position).toISOString(),
          actor: 'test',
          correlation_id: randomUUID(),
          schema_version: 1,
        },
      };
      this.records.set(event, recorded);
      return recorded;
    });
  }

  /** The record `event` became (its id keys the rows of monitor transitions). */
  recordOf(event: DomainEvent): RecordedEvent {
    const recorded = this.records.get(event);
    if (!recorded) throw new Error(`${event.type} was not recorded`);
    return recorded;
  }
}

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
    test.skip(`mongo ${projection.name} projection: skipped, WATCHLOG_MONGO_URL is not set`, () => {});
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

/** One valid event of every type of the catalogue, of project `projectId` (fresh ids otherwise):
 *  the ones a projection does not handle must leave its read model alone. */
export const oneOfEveryType = (projectId: string): DomainEvent[] => {
  const at = '2026-01-01T00:00:00.000Z';
  const [monitor, channel, alert] = [randomUUID(), randomUUID(), randomUUID()];
  const delivery = {
    delivery_id: randomUUID(),
    channel_id: channel,
    channel_type: 'webhook' as const,
    project_id: projectId,
    event_id: alert,
    notification: {
      id: alert,
      type: 'anomaly.detected' as const,
      project_id: projectId,
      rule: 'brute_force' as const,
      service_name: 'sample',
      environment: 'production',
      subject: 'sample',
      details: { count: 10 },
      timestamp: at,
    },
  };
  const samples: { [K in EventType]: EventData<K> } = {
    ProjectCreated: { project_id: projectId, name: 'sample', created_at: at },
    ApiKeyIssued: {
      project_id: projectId,
      key_id: randomUUID(),
      name: 'sample',
      prefix: 'wl_sampl',
      key_hash: 'f'.repeat(64),
      issued_at: at,
    },
    CheckpointSigned: {
      project_id: projectId,
      size: 1,
      root: 'A'.repeat(43) + '=',
      note: 'sample\n1\nroot\n\n— sample sig\n',
      signed_at: at,
    },
    ApiKeyRestricted: {
      project_id: projectId,
      key_id: randomUUID(),
      allowed_origins: ['https://sample.example.com'],
      rate_limit: 10,
      changed_at: at,
    },
    ApiKeyRevoked: { project_id: projectId, key_id: randomUUID(), revoked_at: at },
    MaskingRulesSet: { project_id: projectId, keys: ['sample_key'], patterns: ['sample-[0-9]+'], updated_at: at },
    UserRegistered: {
      user_id: randomUUID(),
      email: 'sample@example.com',
      password_hash: 'scrypt$sample',
      role: 'member',
      project_ids: [projectId],
      registered_at: at,
    },
    UserAccessChanged: { user_id: randomUUID(), role: 'auditor', project_ids: [projectId], changed_at: at },
    UserDisabled: { user_id: randomUUID(), disabled_at: at },
    UserEnabled: { user_id: randomUUID(), enabled_at: at },
    UserPasswordChanged: { user_id: randomUUID(), password_hash: 'scrypt$sample-2', changed_at: at },
    UserPasswordRehashed: { user_id: randomUUID(), password_hash: 'scrypt$sample-3', rehashed_at: at },
    AuditEventRecorded: {
      id: randomUUID(),
      project_id: projectId,
      event_type: 'http',
      timestamp: at,
      path: '/sample',
      method: 'GET',
      identifier: 'sample',
      service_name: 'sample',
      environment: 'production',
      source: 'browser',
      status_code: 401,
      response_time: 5,
      request_id: 'sample',
    },
    MonitorCreated: {
      monitor_id: monitor,
      project_id: projectId,
      created_at: at,
      name: 'sample',
      url: 'https://sample.example.com/',
      interval_seconds: 60,
      timeout_seconds: 10,
      expected_status: 200,
      enabled: true,
    },
    MonitorUpdated: { monitor_id: monitor, project_id: projectId, changes: { name: 'sample-2' }, updated_at: at },
    MonitorDeleted: { monitor_id: monitor, project_id: projectId, deleted_at: at },
    CheckRecorded: {
      monitor_id: monitor,
      project_id: projectId,
      checked_at: at,
      ok: true,
      response_ms: 5,
      status_code: 200,
    },
    MonitorStatusEstablished: {
      monitor_id: monitor,
      project_id: projectId,
      status: 'UP',
      checked_at: at,
      ok: true,
      response_ms: 5,
      status_code: 200,
    },
    MonitorWentDown: {
      monitor_id: monitor,
      project_id: projectId,
      name: 'sample',
      url: 'https://sample.example.com/',
      expected_status: 200,
      went_down_at: at,
      response_ms: 5,
      error: 'expected status 200, received 503',
      status_code: 503,
    },
    MonitorCameUp: {
      monitor_id: monitor,
      project_id: projectId,
      name: 'sample',
      url: 'https://sample.example.com/',
      came_up_at: at,
      status_code: 200,
      response_ms: 5,
      downtime_seconds: 60,
    },
    ChannelCreated: {
      channel_id: channel,
      project_id: projectId,
      target: { type: 'webhook', url: 'https://hooks.example.com/sample', secret: 'sample-secret' },
      events: ['healthcheck', 'alert'],
      active: true,
      created_at: at,
    },
    ChannelUpdated: { channel_id: channel, project_id: projectId, changes: { active: false }, updated_at: at },
    ChannelDeleted: { channel_id: channel, project_id: projectId, deleted_at: at },
    ChannelDeactivated: { channel_id: channel, project_id: projectId, reason: 'sample', deactivated_at: at },
    ChannelDegraded: { channel_id: channel, project_id: projectId, failures: 3, reason: 'sample', degraded_at: at },
    ChannelRecovered: { channel_id: channel, project_id: projectId, recovered_at: at },
    DeliveryScheduled: { ...delivery, scheduled_at: at },
    DeliverySkipped: { ...delivery, reason: 'quiet_period', detail: 'sample', skipped_at: at },
    DeliveryAttempted: {
      delivery_id: delivery.delivery_id,
      channel_id: channel,
      project_id: projectId,
      attempt: 1,
      outcome: 'failed',
      final: false,
      status: 503,
      error: 'answered 503',
      response: null,
      duration_ms: 5,
      attempted_at: at,
    },
    DeliveryRetryRequested: {
      delivery_id: delivery.delivery_id,
      channel_id: channel,
      project_id: projectId,
      requested_at: at,
    },
    DeliveryCancelled: {
      delivery_id: delivery.delivery_id,
      channel_id: channel,
      project_id: projectId,
      reason: 'sample',
      cancelled_at: at,
    },
    AnomalyDetected: {
      alert_id: alert,
      project_id: projectId,
      rule: 'brute_force',
      subject: 'sample',
      service_name: 'sample',
      environment: 'production',
      detected_at: at,
      details: { count: 10 },
    },
    AnomalyCleared: { alert_id: alert, project_id: projectId, rule: 'brute_force', subject: 'sample', cleared_at: at },
    AnomalySettingsUpdated: { project_id: projectId, changes: { brute_force: { threshold: 3 } }, updated_at: at },
    RetentionSet: { project_id: projectId, retention_days: 30, updated_at: at },
    // Before every sample's time, and of an identifier no sample has: it removes nothing.
    RetentionApplied: {
      project_id: projectId,
      cutoff: '2000-01-01T00:00:00.000Z',
      through_position: '1',
      removed: 0,
      applied_at: at,
    },
    ErasureRequested: {
      project_id: projectId,
      erasure_id: randomUUID(),
      identifier: 'nobody-sampled',
      through_position: '1',
      requested_at: at,
    },
    IdentifierErased: {
      project_id: projectId,
      identifier: 'nobody-sampled',
      through_position: '1',
      erased: 0,
      erased_at: at,
    },
    RecordRedacted: { project_id: projectId, reason: 'retention', leaf_hash: 'A'.repeat(43) + '=' },
  };
  return Object.entries(samples).map(([type, data]) => ({ type, data }) as DomainEvent);
};

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

  it('events of the types it does not handle, interleaved, change nothing, and the checkpoint still moves past them', async (t, f) => {
    const events = s.events();
    const others = oneOfEveryType(s.projectId).filter((e) => !it.handles.includes(e.type));
    t.true(others.length > 0);
    const batch = await f.fold(interleave(events, others));
    t.deepEqual(await s.read(f.models), s.expected(f.recorder));
    t.is(batch.at(-1)!.type, others.at(-1)!.type, 'the batch ends with an event it ignores');
    t.is(await f.runner.checkpoint(), batch.at(-1)!.position);
  });

  it('two batches, a batch that crashed part-way then replayed, and a replay of everything give the rows of one batch', async (t, f) => {
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
  });
};
