import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { channelDecider } from '../../src/domain/channel-decider.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { projectDecider } from '../../src/domain/project.ts';
import { channelStream, checksStream, monitorStream, projectStream, userStream } from '../../src/domain/streams.ts';
import { userIdForEmail } from '../../src/domain/user.ts';
import { handle, load, newEvent, type CommandContext } from '../../src/commands/handle.ts';
import { createMonitor, loadMonitor, recordCheck } from '../../src/commands/monitors.ts';
import { createProject, issueApiKey } from '../../src/commands/projects.ts';
import { NO_RESTRICTIONS } from '../../src/domain/api-keys.ts';
import { registerUser } from '../../src/commands/users.ts';
import { testPasswords } from '../helpers/passwords.ts';
import { WrongExpectedRevisionError, type EventLog, type NewEvent } from '../../src/log/event-log.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { tempDir } from '../helpers/server.ts';

/** `handle` against the real embedded log: its retry is only as good as the log's check of the
 *  expected revision, so nothing here mocks that check. Wrappers only add another writer. */

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const ctx: CommandContext = { actor: 'user:test', correlationId: 'corr-1', now: () => new Date(T0) };
const otherWriter: CommandContext = { actor: 'user:other', correlationId: 'corr-2', now: () => new Date(T0) };

const openLog = (t: ExecutionContext): SqliteEventLog => {
  const dir = tempDir();
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  t.teardown(async () => {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return log;
};

/** The log with some of its methods replaced; the rest delegate to it. */
const wrap = (log: EventLog, replaced: Partial<EventLog>): EventLog => ({
  append: (stream, events, expected) => log.append(stream, events, expected),
  appendOnce: (items, withinMs) => log.appendOnce(items, withinMs),
  readStream: (stream, options) => log.readStream(stream, options),
  readLast: (stream) => log.readLast(stream),
  readAll: (after, maxCount) => log.readAll(after, maxCount),
  readPositions: (positions) => log.readPositions(positions),
  headPosition: () => log.headPosition(),
  subscribeAll: (after) => log.subscribeAll(after),
  setStreamMaxCount: (stream, maxCount) => log.setStreamMaxCount(stream, maxCount),
  redacts: log.redacts,
  redact: (redactions) => log.redact(redactions),
  compact: () => log.compact(),
  trim: () => log.trim(),
  onAppend: (listener) => log.onAppend(listener),
  notifyAppended: () => log.notifyAppended(),
  health: () => log.health(),
  close: () => log.close(),
  ...replaced,
});

const typesIn = async (log: EventLog, stream: string) => (await log.readStream(stream)).map((e) => e.type);

const pass = (s: number): CheckResult => ({ checked_at: at(s), ok: true, status_code: 200, response_ms: 12 });
const fail = (s: number): CheckResult => ({ checked_at: at(s), ok: false, status_code: 503, response_ms: 30 });

const projectWithMonitor = async (log: EventLog) => {
  const project = await createProject({ log }, 'shop', ctx);
  const monitor = await createMonitor(
    { log, monitorsInProject: async () => 0, monitorsPerProject: 10 },
    {
      project_id: project.id,
      name: 'orders',
      url: 'https://orders.example.com/health',
    },
    ctx,
  );
  return { projectId: project.id, monitorId: monitor.id };
};

test('the events are appended with the context as metadata; position and state are those after them', async (t) => {
  const log = openLog(t);
  const { id, events, position, state } = await createProject({ log }, 'shop', ctx);
  const stored = await log.readStream(projectStream(id));
  t.deepEqual(
    stored.map((e) => [e.id, e.type, e.position]),
    [[events[0]!.id, 'ProjectCreated', position]],
  );
  t.deepEqual(stored[0]!.metadata, {
    recorded_at: new Date(T0).toISOString(),
    actor: 'user:test',
    correlation_id: 'corr-1',
    schema_version: 1,
  });
  t.is(position, await log.headPosition());
  t.deepEqual(state, (await load(log, projectStream(id), projectDecider)).state);
});

test('four workers recording the same failure at once record one MonitorWentDown', async (t) => {
  const log = openLog(t);
  const { monitorId } = await projectWithMonitor(log);
  // All four load the PENDING monitor before any appends (the log commits once per turn), so
  // three of the four transitions meet a taken revision and are decided again on DOWN.
  const results = await Promise.all(Array.from({ length: 4 }, () => recordCheck({ log }, monitorId, fail(10), ctx)));
  t.deepEqual(results.map((r) => r.events.length).sort(), [0, 0, 0, 1]);
  t.deepEqual(
    results.map((r) => r.state.status),
    ['DOWN', 'DOWN', 'DOWN', 'DOWN'],
  );
  t.deepEqual(
    results.filter((r) => r.events.length === 0).map((r) => r.position),
    [null, null, null],
  );
  t.deepEqual(await typesIn(log, monitorStream(monitorId)), ['MonitorCreated', 'MonitorWentDown']);
  // Every check is still history, transition or not.
  t.deepEqual(await typesIn(log, checksStream(monitorId)), [
    'CheckRecorded',
    'CheckRecorded',
    'CheckRecorded',
    'CheckRecorded',
  ]);
});

test('two registrations of the same e-mail at once give one user and one conflict', async (t) => {
  const log = openLog(t);
  // Both read the free stream before either appends: a real race, not one after the other.
  let toMeet = 2;
  const met: Array<() => void> = [];
  let wrongRevisions = 0;
  const racing = wrap(log, {
    async readStream(stream, options) {
      const events = await log.readStream(stream, options);
      if (stream.startsWith('user-') && toMeet > 0) {
        toMeet -= 1;
        await new Promise<void>((resolve) => {
          met.push(resolve);
          if (toMeet === 0) for (const release of met) release();
        });
      }
      return events;
    },
    async append(stream, events, expected) {
      try {
        return await log.append(stream, events, expected);
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) wrongRevisions += 1;
        throw error;
      }
    },
  });
  const outcomes = await Promise.allSettled([
    registerUser(
      { log: racing, passwords: testPasswords },
      { email: 'ana@example.com', password: 'first password', role: 'admin', project_ids: [] },
      ctx,
    ),
    registerUser(
      { log: racing, passwords: testPasswords },
      { email: 'Ana@Example.com', password: 'second password', role: 'admin', project_ids: [] },
      otherWriter,
    ),
  ]);
  t.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
  const refused = outcomes.find((o) => o.status === 'rejected')?.reason as unknown;
  t.true(refused instanceof DomainError, `expected a DomainError, got ${String(refused)}`);
  t.is((refused as DomainError).code, 'conflict');
  t.is(wrongRevisions, 1, 'the loser met the taken revision and was decided again');
  const stored = await log.readStream(userStream(userIdForEmail('ana@example.com')));
  t.deepEqual(
    stored.map((e) => e.type),
    ['UserRegistered'],
  );
});

test('a stale `loaded` state is decided again on the stream as it now is', async (t) => {
  const log = openLog(t);
  const { monitorId } = await projectWithMonitor(log);
  const stale = await loadMonitor({ log }, monitorId);
  await recordCheck({ log }, monitorId, fail(10), otherWriter);
  // On the stale PENDING state a pass would only establish UP; on DOWN it is a recovery.
  const { events, state } = await recordCheck({ log }, monitorId, pass(70), ctx, stale);
  t.deepEqual(
    events.map((e) => e.type),
    ['MonitorCameUp'],
  );
  t.like(events[0]!.data, { came_up_at: at(70), downtime_seconds: 60 });
  t.is(state.status, 'UP');
  t.deepEqual(await typesIn(log, monitorStream(monitorId)), ['MonitorCreated', 'MonitorWentDown', 'MonitorCameUp']);
});

test('a stale `loaded` state whose command is now nothing to do appends nothing', async (t) => {
  const log = openLog(t);
  const { monitorId } = await projectWithMonitor(log);
  const stale = await loadMonitor({ log }, monitorId);
  await recordCheck({ log }, monitorId, fail(10), otherWriter);
  const result = await recordCheck({ log }, monitorId, fail(20), ctx, stale);
  t.deepEqual(result.events, []);
  t.is(result.position, null);
  t.is(result.state.status, 'DOWN');
  t.deepEqual(await typesIn(log, monitorStream(monitorId)), ['MonitorCreated', 'MonitorWentDown']);
});

test('a command deciding nothing appends nothing and returns position null and the state as loaded', async (t) => {
  const log = openLog(t);
  const id = randomUUID();
  const stream = channelStream(id);
  await handle(
    { log },
    stream,
    channelDecider,
    {
      type: 'CreateChannel',
      channel_id: id,
      project_id: randomUUID(),
      target: { type: 'webhook', url: 'https://hooks.example.com/' },
      events: ['healthcheck'],
      active: false,
      name: null,
      project_scope: 'project',
      quiet_minutes: 0,
      at: at(0),
    },
    ctx,
  );
  const head = await log.headPosition();
  // Deactivating a channel that is not active is nothing to do.
  const result = await handle(
    { log },
    stream,
    channelDecider,
    { type: 'DeactivateChannel', reason: '410 Gone', at: at(1) },
    ctx,
  );
  t.deepEqual(result, { events: [], position: null, state: (await load(log, stream, channelDecider)).state });
  t.is(await log.headPosition(), head);
});

/** A log where another writer appends a key to `target` just before each append there. */
const meddling = (log: EventLog, target: string, projectId: string, times = Infinity) => {
  let appends = 0;
  const wrapped = wrap(log, {
    async append(stream, events, expected) {
      if (stream === target) {
        appends += 1;
        if (appends <= times) {
          const foreign: NewEvent = newEvent(
            {
              type: 'ApiKeyIssued',
              data: {
                project_id: projectId,
                key_id: randomUUID(),
                name: `foreign ${appends}`,
                prefix: 'wl_foreign0',
                key_hash: 'h',
                issued_at: at(appends),
              },
            },
            otherWriter,
          );
          await log.append(stream, [foreign], 'any');
        }
      }
      return log.append(stream, events, expected);
    },
  });
  return { log: wrapped, attempts: () => appends };
};

test(
  'another writer appending before every attempt: ' + 'the command gives up after 5 with WrongExpectedRevisionError',
  async (t) => {
    const log = openLog(t);
    const { id } = await createProject({ log }, 'shop', ctx);
    const stream = projectStream(id);
    const busy = meddling(log, stream, id);
    const error = await t.throwsAsync(issueApiKey({ log: busy.log }, id, 'ci', NO_RESTRICTIONS, ctx), {
      instanceOf: WrongExpectedRevisionError,
    });
    t.is(error.stream, stream);
    t.is(busy.attempts(), 5);
    t.is((await load(log, stream, projectDecider)).state.keys.size, 5, "only the other writer's five keys were issued");
    t.deepEqual(
      (await log.readStream(stream)).filter(
        (e) => e.type === 'ApiKeyIssued' && (e.data as { name: string }).name === 'ci',
      ),
      [],
    );
  },
);

test('another writer appending before each of the first 4 attempts: the fifth appends', async (t) => {
  const log = openLog(t);
  const { id } = await createProject({ log }, 'shop', ctx);
  const stream = projectStream(id);
  const busy = meddling(log, stream, id, 4);
  const { events, state } = await issueApiKey({ log: busy.log }, id, 'ci', NO_RESTRICTIONS, ctx);
  t.is(busy.attempts(), 5);
  t.deepEqual(
    events.map((e) => e.type),
    ['ApiKeyIssued'],
  );
  // The state returned was decided on the other writer's four keys, and holds them with its own.
  t.is(state.keys.size, 5);
  t.deepEqual(
    (await log.readStream(stream)).map((e) => e.type),
    ['ProjectCreated', ...Array(5).fill('ApiKeyIssued')],
  );
});
