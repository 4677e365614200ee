import { subscribersProjection } from '../../projections/subscribers.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { SubscriberNotice } from '../../src/domain/subscriber-mail.ts';
import { subscriberIdOf } from '../../src/domain/subscriber.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { SubscriberView } from '../../src/views/subscribers/port.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(subscribersProjection, (m) => m.stores.subscribers);

const P = 'aa11bb22-0000-4000-8000-00000000000a';
const [PG1, PG2] = ['bb22cc33-0000-4000-8000-000000000001', 'bb22cc33-0000-4000-8000-000000000002'];
const A = subscriberIdOf(PG1, 'ada@example.com');
const B = subscriberIdOf(PG1, 'bob@example.com');
const C = subscriberIdOf(PG2, 'carol@example.com');
const D = subscriberIdOf(PG2, 'dave@example.com');
const E = subscriberIdOf(PG1, 'eve@example.com');
const [D1, D2] = ['cc33dd44-0000-4000-8000-000000000001', 'cc33dd44-0000-4000-8000-000000000002'];
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 12, minute)).toISOString();

const ids = (id: string, page: string) => ({ subscriber_id: id, page_id: page, project_id: P });
const requested = (id: string, page: string, email: string, minute: number): DomainEvent => ({
  type: 'SubscriberRequested',
  data: { ...ids(id, page), email, requested_at: at(minute) },
});
const notice: SubscriberNotice = {
  id: 'dd44ee55-0000-4000-8000-000000000001',
  type: 'incident.opened',
  project_id: P,
  page: { id: PG1, slug: 'one', title: 'One' },
  incident_id: 'ee55ff66-0000-4000-8000-000000000001',
  update_id: 'ee55ff66-0000-4000-8000-000000000002',
  title: 'Down',
  timestamp: at(5),
};
const scheduled = (delivery: string, id: string, minute: number): DomainEvent => ({
  type: 'DeliveryScheduled',
  data: {
    delivery_id: delivery,
    subscriber_id: id,
    page_id: PG1,
    project_id: P,
    event_id: notice.id,
    notice,
    scheduled_at: at(minute),
  },
});
const attempted = (delivery: string, id: string, minute: number, final: boolean): DomainEvent => ({
  type: 'DeliveryAttempted',
  data: {
    delivery_id: delivery,
    subscriber_id: id,
    project_id: P,
    attempt: 1,
    outcome: final ? 'delivered' : 'failed',
    final,
    status: final ? 250 : 451,
    error: null,
    response: null,
    duration_ms: 3,
    attempted_at: at(minute),
  },
});

const read = async (m: ReadModels) => ({
  one: await m.subscribers.list(PG1, { page: 1, limit: 10 }),
  oneConfirmed: (await m.subscribers.list(PG1, { page: 1, limit: 10, status: 'confirmed' })).data.map((s) => s.id),
  two: (await m.subscribers.list(PG2, { page: 1, limit: 10 })).data.map((s) => s.id),
  counts: await m.subscribers.counts(PG1),
  recipients: await m.subscribers.confirmed([PG2, PG1]),
  carol: await m.subscribers.withEmail(P, 'carol@example.com'),
  eve: await m.subscribers.withEmail(P, 'eve@example.com'),
  gone: await m.subscribers.get(C),
});

const view = (over: Partial<SubscriberView> & Pick<SubscriberView, 'id' | 'email'>): SubscriberView => ({
  page_id: PG1,
  project_id: P,
  status: 'pending',
  created_at: at(0),
  updated_at: at(0),
  requested_at: at(0),
  confirmed_at: null,
  unsubscribed_at: null,
  last_delivery: null,
  ...over,
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    requested(A, PG1, 'ada@example.com', 0),
    requested(B, PG1, 'bob@example.com', 1),
    requested(C, PG2, 'carol@example.com', 2),
    requested(D, PG2, 'dave@example.com', 2),
    { type: 'SubscriberConfirmed', data: { ...ids(A, PG1), confirmed_at: at(3) } },
    { type: 'SubscriberConfirmed', data: { ...ids(D, PG2), confirmed_at: at(3) } },
    { type: 'SubscriberRemoved', data: { ...ids(C, PG2), reason: 'admin', removed_at: at(4) } },
    scheduled(D1, A, 5),
    attempted(D1, A, 6, false),
    attempted(D1, A, 7, true),
    { type: 'SubscriberUnsubscribed', data: { ...ids(B, PG1), unsubscribed_at: at(8) } },
    // Asked for again once cancelled: pending again, from its first request on.
    requested(B, PG1, 'bob@example.com', 9),
    scheduled(D2, B, 9),
    {
      type: 'DeliveryCancelled',
      data: { delivery_id: D2, subscriber_id: B, project_id: P, reason: 'x', cancelled_at: at(10) },
    },
    // A delivery to a channel is not a subscriber's.
    {
      type: 'DeliveryCancelled',
      data: { delivery_id: D1, channel_id: A, project_id: P, reason: 'channel deleted', cancelled_at: at(10) },
    },
    requested(E, PG1, 'eve@example.com', 11),
    {
      type: 'IdentifierErased',
      data: { project_id: P, identifier: 'Eve@Example.com', through_position: '1', erased: 1, erased_at: at(12) },
    },
    { type: 'StatusPageDeleted', data: { page_id: PG2, project_id: P, deleted_at: at(13) } },
  ],
  read,
  expected: () => {
    const a = view({
      id: A,
      email: 'ada@example.com',
      status: 'confirmed',
      updated_at: at(3),
      confirmed_at: at(3),
      last_delivery: { id: D1, type: 'incident.opened', status: 'delivered', at: at(7) },
    });
    const b = view({
      id: B,
      email: 'bob@example.com',
      created_at: at(1),
      updated_at: at(9),
      requested_at: at(9),
      last_delivery: { id: D2, type: 'incident.opened', status: 'cancelled', at: at(10) },
    });
    return {
      one: { data: [b, a], pagination: { page: 1, limit: 10, totalItems: 2, totalPage: 1 } },
      oneConfirmed: [A],
      two: [],
      counts: { pending: 1, confirmed: 1, unsubscribed: 0 },
      recipients: [{ id: A, page_id: PG1, email: 'ada@example.com' }],
      carol: [C],
      eve: [],
      gone: null,
    };
  },
});
