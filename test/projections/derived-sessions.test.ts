import { randomUUID } from 'node:crypto';
import { derivedSessionsProjection } from '../../projections/derived-sessions.ts';
import type { AuditEventType } from '../../src/domain/audit-event.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(derivedSessionsProjection, (m) => m.stores.derivedSessions);

const P = '5a3c1e84-6f70-4293-8e0f-1a2b3c4d5e01';
const Q = '5a3c1e84-6f70-4293-8e0f-1a2b3c4d5e02';
const MIN = 60_000;
const T0 = Date.UTC(2026, 4, 4, 8, 0);
const iso = (ms: number) => new Date(ms).toISOString();

const event = (
  identifier: string,
  ms: number,
  over: { project_id?: string; service_name?: string; event_type?: AuditEventType } = {},
): DomainEvent => ({
  type: 'AuditEventRecorded',
  data: {
    id: randomUUID(),
    project_id: P,
    event_type: 'http',
    timestamp: iso(ms),
    path: '/cart',
    method: 'GET',
    identifier,
    service_name: 'web',
    environment: 'production',
    source: 'backend',
    status_code: 200,
    ...over,
  },
});
const at = (identifier: string, minute: number, over: Parameters<typeof event>[2] = {}) =>
  event(identifier, T0 + minute * MIN, over);

const session = (
  identifier: string,
  service_name: string,
  project_id: string,
  [start, end]: [number, number],
  event_count: number,
) => ({
  project_id,
  identifier,
  service_name,
  session_start: iso(T0 + start * MIN),
  session_end: iso(T0 + end * MIN),
  duration_seconds: (end - start) * 60,
  event_count,
});

const read = (m: ReadModels) => m.derivedSessions.list({ page: 1, limit: 100 }, { all: true });
const sessionsOf = async (m: ReadModels, identifier: string) =>
  (await m.derivedSessions.list({ page: 1, limit: 100, identifier }, { all: true })).data.map((s) => [
    s.session_start,
    s.session_end,
    s.event_count,
  ]);

scenarioTests(it, {
  projectId: P,
  events: () => [
    at('ann', 0),
    at('ann', 40),
    at('bob', 2),
    at('ann', 5, { service_name: 'api' }),
    at('ann', 10), // late: joins 0 and 40 (10 and exactly 30 minutes apart) into one session
    at('ann', 55, { event_type: 'system.healthcheck.down' }), // not http: must not bridge 40 and 71
    at('ann', 71), // 31 minutes after 40: a new session
    at('ann', 1, { project_id: Q }),
    at('ann', 75),
    at('bob', 33),
  ],
  read,
  expected: () => ({
    data: [
      session('ann', 'web', P, [71, 75], 2),
      session('bob', 'web', P, [33, 33], 1),
      session('ann', 'api', P, [5, 5], 1),
      session('bob', 'web', P, [2, 2], 1),
      session('ann', 'web', Q, [1, 1], 1),
      session('ann', 'web', P, [0, 40], 3),
    ],
    pagination: { page: 1, limit: 100, totalItems: 6, totalPage: 1 },
  }),
});

it('exactly 30 minutes of silence keeps a session; a millisecond more starts a new one', async (t, f) => {
  await f.fold([event('ann', T0), event('ann', T0 + 30 * MIN), event('ann', T0 + 60 * MIN + 1)]);
  t.deepEqual(await sessionsOf(f.models, 'ann'), [
    [iso(T0 + 60 * MIN + 1), iso(T0 + 60 * MIN + 1), 1],
    [iso(T0), iso(T0 + 30 * MIN), 2],
  ]);
});

it('events in any order, late ones bridging sessions, give the sessions of their sorted times', async (t, f) => {
  // Sorted: 0 25 50 | 90 115 | 160 (gaps of 40 and 45 minutes split them).
  const orders = {
    sorted: [0, 25, 50, 90, 115, 160],
    reversed: [160, 115, 90, 50, 25, 0],
    shuffled: [90, 0, 160, 50, 115, 25],
  };
  await f.fold(Object.entries(orders).flatMap(([who, minutes]) => minutes.map((m) => at(who, m))));
  const expected = [
    [160, 160, 1],
    [90, 115, 2],
    [0, 50, 3],
  ].map(([s, e, n]) => [iso(T0 + s! * MIN), iso(T0 + e! * MIN), n]);
  for (const who of Object.keys(orders)) t.deepEqual(await sessionsOf(f.models, who), expected, who);
});

it('only http events make sessions: other event types neither start nor extend one', async (t, f) => {
  await f.fold([
    at('system', 0, { event_type: 'system.healthcheck.down' }),
    at('ann', 0),
    at('ann', 20, { event_type: 'system.alert' }),
  ]);
  t.deepEqual((await read(f.models)).data, [session('ann', 'web', P, [0, 0], 1)]);
});

it(
  'a session extended batch after batch, at either end, ' + 'and two joined by a later batch, are each one row',
  async (t, f) => {
    // One event a batch: each finds its session stored by the batch before.
    for (const minute of [20, 30, 45, 5, 0, 90, 60]) await f.fold([at('ann', minute)]);
    t.deepEqual(await sessionsOf(f.models, 'ann'), [[iso(T0), iso(T0 + 90 * MIN), 7]]);
    await f.fold([at('bob', 0), at('bob', 40)]);
    await f.fold([at('bob', 20)]);
    t.deepEqual(await sessionsOf(f.models, 'bob'), [[iso(T0), iso(T0 + 40 * MIN), 3]]);
    t.is((await read(f.models)).pagination.totalItems, 2);
  },
);
