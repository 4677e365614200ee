import { channelsProjection } from '../../projections/channels.ts';
import type { ChannelEvents, ChannelTarget } from '../../src/domain/channel.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ChannelView } from '../../src/views/channels/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(channelsProjection, (m) => m.stores.channels);

const P = 'c2ad8f5b-d6e7-490a-9f7a-8b9c0d1e2f01';
const Q = 'c2ad8f5b-d6e7-490a-9f7a-8b9c0d1e2f02';
const [OPS, PUSH, ALERTS, GONE, OTHER] = [1, 2, 3, 4, 5].map((i) => `d3be9a6c-e7f8-4a1b-8a8b-9c0d1e2f3a0${i}`) as [
  string,
  string,
  string,
  string,
  string,
];
const SECRET = 'whsec-ops-0123456789';
const KEYS = {
  p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  auth: 'tBHItJI5svbpez7KI4CCXg',
};

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();
const ops: ChannelTarget = { type: 'webhook', url: 'https://hooks.example.com/ops', secret: SECRET };
const push: ChannelTarget = {
  type: 'webpush',
  subscription: { endpoint: 'https://push.example.net/sub/abc', keys: KEYS },
};
const alerts: ChannelTarget = { type: 'webhook', url: 'https://hooks.example.com/alerts' };

const created = (
  channel_id: string,
  target: ChannelTarget,
  events: ChannelEvents,
  active: boolean,
  minute: number,
  project_id = P,
): DomainEvent => ({
  type: 'ChannelCreated',
  data: { channel_id, project_id, target, events, active, created_at: at(minute) },
});
const updated = (
  channel_id: string,
  changes: { active?: boolean; events?: ChannelEvents },
  minute: number,
): DomainEvent => ({ type: 'ChannelUpdated', data: { channel_id, project_id: P, changes, updated_at: at(minute) } });
const deactivated = (channel_id: string, minute: number): DomainEvent => ({
  type: 'ChannelDeactivated',
  data: { channel_id, project_id: P, reason: 'push subscription gone (410)', deactivated_at: at(minute) },
});
const deleted = (channel_id: string, minute: number): DomainEvent => ({
  type: 'ChannelDeleted',
  data: { channel_id, project_id: P, deleted_at: at(minute) },
});

const view = (id: string, over: Partial<ChannelView> & Pick<ChannelView, 'type' | 'url' | 'events'>): ChannelView => ({
  id,
  project_id: P,
  name: null,
  has_secret: false,
  settings: {},
  project_scope: 'project',
  quiet_minutes: 0,
  active: true,
  deactivated_reason: null,
  degraded: false,
  degraded_reason: null,
  degraded_since: null,
  created_at: at(0),
  updated_at: at(0),
  ...over,
});

const targets = (rows: Array<{ id: string; target: ChannelTarget }>) => rows.map(({ id, target }) => ({ id, target }));

const read = async (m: ReadModels) => ({
  list: await m.channels.list({ all: true }),
  healthcheck: targets(await m.channels.targets(P, 'healthcheck')),
  alert: targets(await m.channels.targets(P, 'alert')),
  otherProject: targets(await m.channels.targets(Q, 'healthcheck')),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    created(OPS, ops, ['healthcheck'], true, 0),
    created(PUSH, push, ['healthcheck', 'alert'], true, 1),
    created(ALERTS, alerts, ['alert'], false, 2),
    created(GONE, alerts, ['healthcheck'], true, 3),
    deactivated(PUSH, 5),
    updated(ALERTS, { active: true }, 6),
    updated(OPS, { events: ['healthcheck', 'alert'] }, 7),
    created(OTHER, ops, ['healthcheck'], true, 8, Q),
    deleted(GONE, 9),
  ],
  read,
  expected: () => ({
    list: [
      view(OPS, {
        type: 'webhook',
        url: 'https://hooks.example.com/ops',
        has_secret: true,
        events: ['healthcheck', 'alert'],
        updated_at: at(7),
      }),
      view(PUSH, {
        type: 'webpush',
        url: 'https://push.example.net/sub/abc',
        events: ['healthcheck', 'alert'],
        active: false,
        deactivated_reason: 'push subscription gone (410)',
        created_at: at(1),
        updated_at: at(5),
      }),
      view(ALERTS, {
        type: 'webhook',
        url: 'https://hooks.example.com/alerts',
        events: ['alert'],
        created_at: at(2),
        updated_at: at(6),
      }),
      view(OTHER, {
        project_id: Q,
        type: 'webhook',
        url: 'https://hooks.example.com/ops',
        has_secret: true,
        events: ['healthcheck'],
        created_at: at(8),
        updated_at: at(8),
      }),
    ],
    healthcheck: [{ id: OPS, target: ops }],
    alert: [
      { id: OPS, target: ops },
      { id: ALERTS, target: alerts },
    ],
    otherProject: [{ id: OTHER, target: ops }],
  }),
});

it('views never show a webhook secret or push keys; only the delivery targets carry them', async (t, f) => {
  await f.fold([created(OPS, ops, ['healthcheck'], true, 0), created(PUSH, push, ['healthcheck'], true, 1)]);
  const views = JSON.stringify([
    await f.models.channels.list({ all: true }),
    await f.models.channels.list({ all: false, projectIds: [P] }, P),
    await f.models.channels.get(OPS, { all: true }),
    await f.models.channels.get(PUSH, { all: true }),
  ]);
  for (const secret of [SECRET, KEYS.p256dh, KEYS.auth]) t.false(views.includes(secret), `${secret} is in a view`);
  t.deepEqual(targets(await f.models.channels.targets(P, 'healthcheck')), [
    { id: OPS, target: ops },
    { id: PUSH, target: push },
  ]);
});

it('a deactivated channel keeps its reason through other updates; switching it back on clears it', async (t, f) => {
  await f.fold([
    created(PUSH, push, ['healthcheck'], true, 0),
    deactivated(PUSH, 1),
    updated(PUSH, { events: ['alert'] }, 2),
  ]);
  t.like(await f.models.channels.get(PUSH, { all: true }), {
    active: false,
    deactivated_reason: 'push subscription gone (410)',
    events: ['alert'],
    updated_at: at(2),
  });
  await f.fold([updated(PUSH, { active: true }, 3)]);
  t.like(await f.models.channels.get(PUSH, { all: true }), {
    active: true,
    deactivated_reason: null,
    events: ['alert'],
    updated_at: at(3),
  });
  t.deepEqual(targets(await f.models.channels.targets(P, 'alert')), [{ id: PUSH, target: push }]);
});

const ALL = 'd3be9a6c-e7f8-4a1b-8a8b-9c0d1e2f3a06';
const slack: ChannelTarget = { type: 'slack', url: 'https://hooks.slack.com/services/T0/B0/sl4ck-t0ken' };

it('a channel for all projects is a target of every project, and only admins see it', async (t, f) => {
  await f.fold([
    created(OPS, ops, ['healthcheck'], true, 0),
    {
      type: 'ChannelCreated',
      data: {
        channel_id: ALL,
        project_id: P,
        target: slack,
        events: ['healthcheck'],
        active: true,
        name: 'ops',
        project_scope: 'all',
        quiet_minutes: 10,
        created_at: at(1),
      },
    },
  ]);
  t.deepEqual(
    (await f.models.channels.targets(P, 'healthcheck')).map((r) => r.id),
    [OPS, ALL],
  );
  t.deepEqual(
    (await f.models.channels.targets(Q, 'healthcheck')).map((r) => r.id),
    [ALL],
  );
  t.like(await f.models.channels.get(ALL, { all: true }), {
    type: 'slack',
    name: 'ops',
    url: 'https://hooks.slack.com/…',
    has_secret: true,
    project_scope: 'all',
    quiet_minutes: 10,
  });
  t.is(await f.models.channels.get(ALL, { all: false, projectIds: [P] }), null);
  t.deepEqual(
    (await f.models.channels.list({ all: false, projectIds: [P] })).map((c) => c.id),
    [OPS],
  );
  t.false(
    JSON.stringify(await f.models.channels.list({ all: true })).includes('sl4ck-t0ken'),
    "a chat webhook's token is never shown",
  );
  t.deepEqual((await f.models.channels.target(ALL))?.target, slack);
});

it('degraded and recovered: the reason and since, cleared on recovery', async (t, f) => {
  await f.fold([
    created(OPS, ops, ['healthcheck'], true, 0),
    {
      type: 'ChannelDegraded',
      data: { channel_id: OPS, project_id: P, failures: 3, reason: '3 deliveries in a row failed', degraded_at: at(4) },
    },
  ]);
  t.like(await f.models.channels.get(OPS, { all: true }), {
    degraded: true,
    degraded_reason: '3 deliveries in a row failed',
    degraded_since: at(4),
    updated_at: at(0),
  });
  await f.fold([{ type: 'ChannelRecovered', data: { channel_id: OPS, project_id: P, recovered_at: at(5) } }]);
  t.like(await f.models.channels.get(OPS, { all: true }), {
    degraded: false,
    degraded_reason: null,
    degraded_since: null,
  });
});
