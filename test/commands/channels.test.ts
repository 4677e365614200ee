import test from 'ava';
import type { ChannelEvents, ChannelTarget } from '../../src/domain/channel.ts';
import { channelDecider, type ChannelCommand } from '../../src/domain/channel-decider.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(channelDecider);

const [C, P, T0, T1, T2] = [
  '7a2e4b6c-4444-4d4d-8e8e-000000000001',
  '0b7c2a4e-1111-4a4a-8a8a-000000000001',
  '2026-11-23T10:00:00.000Z',
  '2026-11-23T10:05:00.000Z',
  '2026-11-23T10:10:00.000Z',
];
const ids = { channel_id: C, project_id: P };

const webhook: ChannelTarget = { type: 'webhook', url: 'https://hooks.example.com/watchlog', secret: 'sh4r3d-s3cret' };
const webpush: ChannelTarget = {
  type: 'webpush',
  subscription: { endpoint: 'https://push.example.net/send/abc', keys: { p256dh: 'BPk3y', auth: 'auth-secret' } },
};

const settings = { name: null, project_scope: 'project' as const, quiet_minutes: 0 };
const create = (target: ChannelTarget, events: ChannelEvents = ['healthcheck'], active = true): ChannelCommand => ({
  type: 'CreateChannel',
  ...ids,
  target,
  events,
  active,
  ...settings,
  at: T0,
});
const createdWith = (target: ChannelTarget, events: ChannelEvents = ['healthcheck'], active = true): DomainEvent => ({
  type: 'ChannelCreated',
  data: { ...ids, target, events, active, ...settings, created_at: T0 },
});
const created = createdWith(webpush);
const createdInactive = createdWith(webpush, ['healthcheck'], false);

type Changes = { active?: boolean; events?: ChannelEvents; name?: string | null; quiet_minutes?: number };
const update = (changes: Changes): ChannelCommand => ({ type: 'UpdateChannel', changes, at: T1 });
const updated = (changes: Changes): DomainEvent => ({
  type: 'ChannelUpdated',
  data: { ...ids, changes, updated_at: T1 },
});
const remove: ChannelCommand = { type: 'DeleteChannel', at: T2 };
const deleted: DomainEvent = { type: 'ChannelDeleted', data: { ...ids, deleted_at: T2 } };
const deactivate: ChannelCommand = { type: 'DeactivateChannel', reason: 'push service answered 410 Gone', at: T2 };
const deactivated: DomainEvent = {
  type: 'ChannelDeactivated',
  data: { ...ids, reason: 'push service answered 410 Gone', deactivated_at: T2 },
};

// ---- CreateChannel ----

test('CreateChannel creates a webhook or a web push channel with its events and active flag', (t) => {
  spec(t)
    .given([])
    .when(create(webhook))
    .then([createdWith(webhook)]);
  spec(t)
    .given([])
    .when(create(webpush, ['healthcheck', 'alert'], false))
    .then([createdWith(webpush, ['healthcheck', 'alert'], false)]);
});

test('CreateChannel again is a conflict, also once the channel is deleted', (t) => {
  spec(t).given([created]).when(create(webpush)).thenThrows({ code: 'conflict', message: 'channel already exists' });
  spec(t)
    .given([created, deleted])
    .when(create(webpush))
    .thenThrows({ code: 'conflict', message: 'channel already exists' });
});

// ---- UpdateChannel ----

test('UpdateChannel records the changes asked for', (t) => {
  spec(t)
    .given([created])
    .when(update({ active: false }))
    .then([updated({ active: false })]);
  spec(t)
    .given([created])
    .when(update({ events: ['alert'] }))
    .then([updated({ events: ['alert'] })]);
  spec(t)
    .given([createdInactive])
    .when(update({ active: true, events: ['alert'] }))
    .then([updated({ active: true, events: ['alert'] })]);
});

test('UpdateChannel and DeleteChannel of a missing or deleted channel are not_found', (t) => {
  for (const command of [update({ active: false }), remove]) {
    spec(t).given([]).when(command).thenThrows({ code: 'not_found', message: 'channel not found' });
    spec(t).given([created, deleted]).when(command).thenThrows({ code: 'not_found', message: 'channel not found' });
  }
});

// Like UpdateMonitor: an update that changes nothing records nothing (updated_at stays).
test('UpdateChannel with no actual change gives no event', (t) => {
  spec(t).given([created]).when(update({})).thenNothing();
  spec(t)
    .given([created])
    .when(update({ active: true }))
    .thenNothing();
  spec(t)
    .given([created])
    .when(update({ events: ['healthcheck'] }))
    .thenNothing();
});

// ---- DeleteChannel ----

test('DeleteChannel deletes an existing channel, active or not', (t) => {
  spec(t).given([created]).when(remove).then([deleted]);
  spec(t).given([createdInactive]).when(remove).then([deleted]);
  spec(t).given([created, deactivated]).when(remove).then([deleted]);
});

// ---- DeactivateChannel: once, and only while active ----

test('DeactivateChannel deactivates an active channel with the reason', (t) => {
  spec(t).given([created]).when(deactivate).then([deactivated]);
  spec(t)
    .given([createdInactive, updated({ active: true })])
    .when(deactivate)
    .then([deactivated]);
});

// The push service answers 410 to every delivery in flight: only the first deactivates, and a
// deactivation must never be a refusal the reactor would retry.
test('DeactivateChannel of a channel not active gives nothing, never an error', (t) => {
  const rows: Array<[string, DomainEvent[]]> = [
    ['already deactivated', [created, deactivated]],
    ['created inactive', [createdInactive]],
    ['switched off by hand', [created, updated({ active: false })]],
    ['deleted', [created, deleted]],
    ['never created', []],
  ];
  for (const [, given] of rows) spec(t).given(given).when(deactivate).thenNothing();
});

test('an update that leaves active out keeps the channel active for deactivation', (t) => {
  spec(t)
    .given([created, updated({ events: ['alert'] })])
    .when(deactivate)
    .then([deactivated]);
});

test('UpdateChannel changes the name and the quiet period, and only what differs', (t) => {
  spec(t)
    .given([created])
    .when(update({ name: 'Ops Slack', quiet_minutes: 30 }))
    .then([updated({ name: 'Ops Slack', quiet_minutes: 30 })]);
  spec(t)
    .given([created, updated({ name: 'Ops Slack' })])
    .when(update({ name: 'Ops Slack', quiet_minutes: 0 }))
    .thenNothing();
  spec(t)
    .given([created, updated({ name: 'Ops Slack' })])
    .when(update({ name: null }))
    .then([updated({ name: null })]);
  spec(t)
    .given([
      {
        type: 'ChannelCreated',
        data: { ...ids, target: webhook, events: ['healthcheck'], active: true, created_at: T0 },
      },
    ])
    .when(update({ quiet_minutes: 0, name: null }))
    .thenNothing();
});

// ---- DegradeChannel / RecoverChannel: once each, until the other ----

const degrade: ChannelCommand = {
  type: 'DegradeChannel',
  failures: 3,
  reason: '3 deliveries in a row failed; the last: answered 503',
  at: T1,
};
const degraded: DomainEvent = {
  type: 'ChannelDegraded',
  data: { ...ids, failures: 3, reason: '3 deliveries in a row failed; the last: answered 503', degraded_at: T1 },
};
const recover: ChannelCommand = { type: 'RecoverChannel', at: T2 };
const recovered: DomainEvent = { type: 'ChannelRecovered', data: { ...ids, recovered_at: T2 } };

test(
  'DegradeChannel marks a channel degraded once; RecoverChannel clears it once; ' +
    'a deleted or unknown channel gives nothing',
  (t) => {
    spec(t).given([created]).when(degrade).then([degraded]);
    spec(t).given([created, degraded]).when(degrade).thenNothing();
    spec(t).given([created, degraded]).when(recover).then([recovered]);
    spec(t).given([created, degraded, recovered]).when(recover).thenNothing();
    spec(t).given([created]).when(recover).thenNothing();
    spec(t).given([created, degraded, recovered]).when(degrade).then([degraded]);
    for (const given of [[], [created, deleted]]) {
      spec(t).given(given).when(degrade).thenNothing();
      spec(t).given(given).when(recover).thenNothing();
    }
  },
);
