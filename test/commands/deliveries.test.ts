import test from 'ava';
import {
  attemptsLeft,
  deliveryDecider,
  deliveryIdOf,
  evolveDelivery,
  inQuietPeriod,
  initialDelivery,
  type DeliveryCommand,
} from '../../src/domain/delivery.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { isUuid } from '../../src/domain/codecs.ts';
import { transitionNotification } from '../../src/domain/notification.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(deliveryDecider);

const [D, C, P, E] = [
  '1f2e3d4c-5b6a-8978-8a8b-000000000001',
  '7a2e4b6c-4444-4d4d-8e8e-000000000001',
  '0b7c2a4e-1111-4a4a-8a8a-000000000001',
  '9c8b7a6d-2222-4b4b-9c9c-000000000001',
];
const [T0, T1, T2, T3] = [
  '2026-11-23T10:00:00.000Z',
  '2026-11-23T10:00:01.000Z',
  '2026-11-23T10:00:02.000Z',
  '2026-11-23T10:05:00.000Z',
];
const notification = transitionNotification(E, {
  type: 'MonitorWentDown',
  data: {
    monitor_id: 'm1',
    project_id: P,
    name: 'orders',
    url: 'https://orders.example.com/health',
    expected_status: 200,
    went_down_at: T0,
    response_ms: 9,
    error: 'expected status 200, received 503',
    status_code: 503,
  },
});
const about = {
  delivery_id: D,
  channel_id: C,
  channel_type: 'slack' as const,
  project_id: P,
  event_id: E,
  notification,
};

const schedule: DeliveryCommand = { type: 'ScheduleDelivery', ...about, at: T0 };
const scheduled: DomainEvent = { type: 'DeliveryScheduled', data: { ...about, scheduled_at: T0 } };
const skip: DeliveryCommand = {
  type: 'SkipDelivery',
  ...about,
  reason: 'quiet_period',
  detail: 'within the quiet period',
  at: T0,
};
const skipped: DomainEvent = {
  type: 'DeliverySkipped',
  data: { ...about, reason: 'quiet_period', detail: 'within the quiet period', skipped_at: T0 },
};
const attempt = (n: number, outcome: 'delivered' | 'failed', final: boolean, at = T1): DeliveryCommand => ({
  type: 'RecordAttempt',
  attempt: n,
  outcome,
  final,
  status: outcome === 'delivered' ? 200 : 500,
  error: outcome === 'delivered' ? null : 'answered 500',
  response: null,
  duration_ms: 4,
  at,
});
const attempted = (n: number, outcome: 'delivered' | 'failed', final: boolean, at = T1): DomainEvent => ({
  type: 'DeliveryAttempted',
  data: {
    delivery_id: D,
    channel_id: C,
    project_id: P,
    attempt: n,
    outcome,
    final,
    status: outcome === 'delivered' ? 200 : 500,
    error: outcome === 'delivered' ? null : 'answered 500',
    response: null,
    duration_ms: 4,
    attempted_at: at,
  },
});
const retry: DeliveryCommand = { type: 'RequestRetry', at: T3 };
const retryRequested: DomainEvent = {
  type: 'DeliveryRetryRequested',
  data: { delivery_id: D, channel_id: C, project_id: P, requested_at: T3 },
};
const cancel: DeliveryCommand = { type: 'CancelDelivery', reason: 'channel deleted', at: T2 };
const cancelled: DomainEvent = {
  type: 'DeliveryCancelled',
  data: { delivery_id: D, channel_id: C, project_id: P, reason: 'channel deleted', cancelled_at: T2 },
};

test("a delivery's id is a UUID, the same for the same event and channel, another for another channel", (t) => {
  t.true(isUuid(deliveryIdOf(E, C)));
  t.is(deliveryIdOf(E, C), deliveryIdOf(E, C));
  t.not(deliveryIdOf(E, C), deliveryIdOf(E, P));
  t.regex(deliveryIdOf(E, C), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('scheduling or skipping is once: again, either way, gives nothing', (t) => {
  spec(t).given([]).when(schedule).then([scheduled]);
  spec(t).given([]).when(skip).then([skipped]);
  for (const given of [[scheduled], [skipped]]) {
    spec(t).given(given).when(schedule).thenNothing();
    spec(t).given(given).when(skip).thenNothing();
  }
});

test('tries are recorded in order while pending; a try recorded already, or out of turn, gives nothing', (t) => {
  spec(t)
    .given([scheduled])
    .when(attempt(1, 'failed', false))
    .then([attempted(1, 'failed', false)]);
  spec(t)
    .given([scheduled, attempted(1, 'failed', false)])
    .when(attempt(2, 'delivered', true))
    .then([attempted(2, 'delivered', true)]);
  spec(t)
    .given([scheduled, attempted(1, 'failed', false)])
    .when(attempt(1, 'failed', false))
    .thenNothing();
  spec(t)
    .given([scheduled])
    .when(attempt(2, 'failed', false))
    .thenNothing();
  spec(t)
    .given([scheduled, attempted(1, 'delivered', true)])
    .when(attempt(2, 'delivered', true))
    .thenNothing();
  spec(t)
    .given([skipped])
    .when(attempt(1, 'delivered', true))
    .thenNothing();
  spec(t)
    .given([])
    .when(attempt(1, 'delivered', true))
    .thenNothing();
});

test(
  'a failed or cancelled delivery may be sent again, ' + 'with a new round of tries; anything else is a conflict',
  (t) => {
    const failed = [scheduled, attempted(1, 'failed', false), attempted(2, 'failed', true)];
    spec(t).given(failed).when(retry).then([retryRequested]);
    spec(t).given([scheduled, cancelled]).when(retry).then([retryRequested]);
    const state = [...failed, retryRequested].reduce(evolveDelivery, initialDelivery);
    t.like(state, { status: 'pending', attempts: 2, roundStart: 2 });
    t.is(attemptsLeft(state, 3), 3);
    spec(t)
      .given([...failed, retryRequested])
      .when(attempt(3, 'delivered', true))
      .then([attempted(3, 'delivered', true)]);
    for (const [status, given] of [
      ['pending', [scheduled]],
      ['delivered', [scheduled, attempted(1, 'delivered', true)]],
      ['skipped', [skipped]],
    ] as const) {
      spec(t)
        .given(given)
        .when(retry)
        .thenThrows({
          code: 'conflict',
          message: `only a failed or cancelled delivery can be sent again; this one is ${status}`,
        });
    }
    spec(t).given([]).when(retry).thenThrows({ code: 'not_found', message: 'delivery not found' });
  },
);

test('a pending delivery is cancelled once; a settled one is not', (t) => {
  spec(t)
    .given([scheduled, attempted(1, 'failed', false)])
    .when(cancel)
    .then([cancelled]);
  spec(t).given([scheduled, cancelled]).when(cancel).thenNothing();
  spec(t)
    .given([scheduled, attempted(1, 'delivered', true)])
    .when(cancel)
    .thenNothing();
  spec(t).given([]).when(cancel).thenNothing();
});

test(
  'the quiet period holds back a DOWN within it after the last DOWN sent; ' + 'never an UP, an alert or a first DOWN',
  (t) => {
    t.true(inQuietPeriod('monitor.down', 10, T0, '2026-11-23T10:09:59.999Z'));
    t.false(inQuietPeriod('monitor.down', 10, T0, '2026-11-23T10:10:00.000Z'));
    t.false(inQuietPeriod('monitor.down', 10, null, T0));
    t.false(inQuietPeriod('monitor.down', 0, T0, T1));
    t.false(inQuietPeriod('monitor.up', 10, T0, T1));
    t.false(inQuietPeriod('anomaly.detected', 10, T0, T1));
  },
);
