import { deliveriesProjection } from '../../projections/deliveries.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { alertNotification, transitionNotification } from '../../src/domain/notification.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(deliveriesProjection, (m) => m.stores.deliveries);

const P = 'c2ad8f5b-d6e7-490a-9f7a-8b9c0d1e2f01';
const [CH, OTHER] = ['d3be9a6c-e7f8-4a1b-8a8b-9c0d1e2f3a01', 'd3be9a6c-e7f8-4a1b-8a8b-9c0d1e2f3a02'];
const [D1, D2, D3] = [1, 2, 3].map((i) => `e4cf0b7d-f809-4b2c-8b9c-0d1e2f3a4b0${i}`) as [string, string, string];
const [E1, E2] = ['f5d01c8e-0a1b-4c3d-8e4f-5a6b7c8d9e01', 'f5d01c8e-0a1b-4c3d-8e4f-5a6b7c8d9e02'];
const at = (s: number) => new Date(Date.UTC(2026, 10, 2, 9, 0, s)).toISOString();

const down = transitionNotification(E1, {
  type: 'MonitorWentDown',
  data: {
    monitor_id: 'm1',
    project_id: P,
    name: 'orders',
    url: 'https://orders.example.com/',
    expected_status: 200,
    went_down_at: at(0),
    response_ms: 9,
    error: 'answered 503',
    status_code: 503,
  },
});
const alert = alertNotification({
  alert_id: E2,
  project_id: P,
  rule: 'error_rate',
  subject: 'orders',
  service_name: 'orders',
  environment: 'production',
  detected_at: at(1),
  details: { rate: 0.4 },
});
const about = (delivery_id: string, channel_id: string, n: typeof down | typeof alert) => ({
  delivery_id,
  channel_id,
  channel_type: 'slack' as const,
  project_id: P,
  event_id: n.id,
  notification: n,
});
const tried = (
  delivery_id: string,
  channel_id: string,
  attempt: number,
  outcome: 'delivered' | 'failed',
  final: boolean,
  s: number,
): DomainEvent => ({
  type: 'DeliveryAttempted',
  data: {
    delivery_id,
    channel_id,
    project_id: P,
    attempt,
    outcome,
    final,
    status: outcome === 'delivered' ? 200 : 500,
    error: outcome === 'delivered' ? null : 'answered 500',
    response: outcome === 'delivered' ? 'ok' : null,
    duration_ms: 3,
    attempted_at: at(s),
  },
});
const attemptView = (attempt: number, outcome: 'delivered' | 'failed', s: number) => ({
  attempt,
  at: at(s),
  outcome,
  status: outcome === 'delivered' ? 200 : 500,
  error: outcome === 'delivered' ? null : 'answered 500',
  response: outcome === 'delivered' ? 'ok' : null,
  duration_ms: 3,
});

const read = async (m: ReadModels) => ({
  channel: await m.deliveries.forChannel(CH, { page: 1, limit: 10 }, { all: true }),
  event: await m.deliveries.forEvent(E1, { all: true }),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    { type: 'DeliveryScheduled', data: { ...about(D1, CH, down), scheduled_at: at(0) } },
    { type: 'DeliveryScheduled', data: { ...about(D2, OTHER, down), scheduled_at: at(0) } },
    tried(D1, CH, 1, 'failed', false, 2),
    tried(D1, CH, 2, 'failed', true, 3),
    {
      type: 'DeliverySkipped',
      data: {
        ...about(D3, CH, alert),
        reason: 'stale',
        detail: 'not sent: older than the delivery window',
        skipped_at: at(4),
      },
    },
    {
      type: 'DeliveryCancelled',
      data: { delivery_id: D2, channel_id: OTHER, project_id: P, reason: 'channel deleted', cancelled_at: at(5) },
    },
    { type: 'DeliveryRetryRequested', data: { delivery_id: D1, channel_id: CH, project_id: P, requested_at: at(6) } },
    tried(D1, CH, 3, 'delivered', true, 7),
  ],
  read,
  expected: () => ({
    channel: {
      data: [
        {
          id: D3,
          channel_id: CH,
          channel_type: 'slack',
          project_id: P,
          event_id: E2,
          event_type: 'anomaly.detected',
          title: 'Anomaly: error_rate on orders',
          status: 'skipped',
          reason: 'not sent: older than the delivery window',
          attempts: [],
          created_at: at(4),
          updated_at: at(4),
        },
        {
          id: D1,
          channel_id: CH,
          channel_type: 'slack',
          project_id: P,
          event_id: E1,
          event_type: 'monitor.down',
          title: 'orders is DOWN',
          status: 'delivered',
          reason: null,
          attempts: [attemptView(1, 'failed', 2), attemptView(2, 'failed', 3), attemptView(3, 'delivered', 7)],
          created_at: at(0),
          updated_at: at(7),
        },
      ],
      pagination: { page: 1, limit: 10, totalItems: 2, totalPage: 1 },
    },
    event: [
      {
        id: D1,
        channel_id: CH,
        channel_type: 'slack',
        project_id: P,
        event_id: E1,
        event_type: 'monitor.down',
        title: 'orders is DOWN',
        status: 'delivered',
        reason: null,
        attempts: [attemptView(1, 'failed', 2), attemptView(2, 'failed', 3), attemptView(3, 'delivered', 7)],
        created_at: at(0),
        updated_at: at(7),
      },
      {
        id: D2,
        channel_id: OTHER,
        channel_type: 'slack',
        project_id: P,
        event_id: E1,
        event_type: 'monitor.down',
        title: 'orders is DOWN',
        status: 'cancelled',
        reason: 'channel deleted',
        attempts: [],
        created_at: at(0),
        updated_at: at(5),
      },
    ],
  }),
});
