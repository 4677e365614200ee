import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { deliveryDecider } from '../../src/domain/delivery.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { subscriberMail, type SubscriberNotice } from '../../src/domain/subscriber-mail.ts';
import {
  SubscriberEmail,
  subscriberDecider,
  subscriberIdOf,
  subscriptionKey,
  subscriptionToken,
  tokenMatches,
} from '../../src/domain/subscriber.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(subscriberDecider);
const [PAGE, PROJECT] = ['0b7c2a4e-1111-4a4a-8a8a-000000000001', '9c8b7a6d-2222-4b4b-9c9c-000000000001'];
const ID = subscriberIdOf(PAGE, 'ada@example.com');
const ids = { subscriber_id: ID, page_id: PAGE, project_id: PROJECT };
const T0 = '2026-11-23T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const request = (minutes: number) => ({
  type: 'RequestSubscription' as const,
  ...ids,
  email: 'ada@example.com',
  at: at(minutes),
});
const requested = (minutes: number): DomainEvent => ({
  type: 'SubscriberRequested',
  data: { ...ids, email: 'ada@example.com', requested_at: at(minutes) },
});
const confirmed: DomainEvent = { type: 'SubscriberConfirmed', data: { ...ids, confirmed_at: at(1) } };
const unsubscribed: DomainEvent = { type: 'SubscriberUnsubscribed', data: { ...ids, unsubscribed_at: at(2) } };
const removed: DomainEvent = { type: 'SubscriberRemoved', data: { ...ids, reason: 'admin', removed_at: at(3) } };

test('the id comes from the page and the address as the codec keeps it', (t) => {
  t.is(subscriberIdOf(PAGE, ' Ada@Example.COM '), ID);
  t.not(subscriberIdOf('0b7c2a4e-1111-4a4a-8a8a-000000000002', 'ada@example.com'), ID);
  t.regex(ID, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  const decoded = SubscriberEmail.decode(' Ada@Example.com ');
  t.false(isLeft(decoded));
  t.is(decoded._tag === 'Right' ? decoded.right : null, 'ada@example.com');
  for (const bad of ['ada', 'ada@example', 'a,b@example.com', 'Ada <ada@example.com>', 'a b@example.com', 7])
    t.true(isLeft(SubscriberEmail.decode(bad)), String(bad));
  t.true(isLeft(SubscriberEmail.decode(`${'a'.repeat(250)}@example.com`)));
});

test('asking: a new address is pending; a pending one is asked again after 10 minutes only', (t) => {
  spec(t)
    .when(request(0))
    .then([requested(0)]);
  spec(t)
    .given([requested(0)])
    .when(request(9))
    .thenNothing();
  spec(t)
    .given([requested(0)])
    .when(request(10))
    .then([requested(10)]);
});

test('asking: a confirmed address is sent nothing; an unsubscribed or removed one is pending again', (t) => {
  spec(t)
    .given([requested(0), confirmed])
    .when(request(30))
    .thenNothing();
  spec(t)
    .given([requested(0), confirmed, unsubscribed])
    .when(request(4))
    .then([requested(4)]);
  spec(t)
    .given([requested(0), removed])
    .when(request(4))
    .then([requested(4)]);
});

test('confirming: once; not a cancelled one; an unknown or removed one is not found', (t) => {
  const confirm = { type: 'ConfirmSubscription' as const, at: at(1) };
  spec(t)
    .given([requested(0)])
    .when(confirm)
    .then([confirmed]);
  spec(t)
    .given([requested(0), confirmed])
    .when(confirm)
    .thenNothing();
  spec(t)
    .given([requested(0), unsubscribed])
    .when(confirm)
    .thenThrows({ code: 'conflict' });
  spec(t).when(confirm).thenThrows({ code: 'not_found' });
  spec(t)
    .given([requested(0), removed])
    .when(confirm)
    .thenThrows({ code: 'not_found' });
});

test('unsubscribing and removing', (t) => {
  const leave = { type: 'Unsubscribe' as const, at: at(2) };
  spec(t)
    .given([requested(0), confirmed])
    .when(leave)
    .then([unsubscribed]);
  spec(t)
    .given([requested(0)])
    .when(leave)
    .then([unsubscribed]);
  spec(t)
    .given([requested(0), unsubscribed])
    .when(leave)
    .thenNothing();
  spec(t)
    .given([requested(0), removed])
    .when(leave)
    .thenNothing();
  spec(t).when(leave).thenThrows({ code: 'not_found' });
  const remove = { type: 'RemoveSubscriber' as const, reason: 'admin' as const, at: at(3) };
  spec(t)
    .given([requested(0), confirmed, unsubscribed])
    .when(remove)
    .then([removed]);
  spec(t)
    .given([requested(0), removed])
    .when(remove)
    .thenThrows({ code: 'not_found' });
});

test('link tokens: HMAC of purpose and id under a key of the JWT secret, compared whole', (t) => {
  const key = subscriptionKey('a JWT secret of at least thirty-two characters');
  const token = subscriptionToken(key, 'confirm', ID);
  t.regex(token, /^[A-Za-z0-9_-]{43}$/);
  t.true(tokenMatches(key, 'confirm', ID, token));
  t.false(tokenMatches(key, 'unsubscribe', ID, token), 'a confirmation link does not unsubscribe');
  t.false(tokenMatches(key, 'confirm', subscriberIdOf(PAGE, 'bob@example.com'), token));
  t.false(tokenMatches(subscriptionKey('another JWT secret of thirty-two characters'), 'confirm', ID, token));
  t.false(tokenMatches(key, 'confirm', ID, token.slice(0, 42)));
  t.false(tokenMatches(key, 'confirm', ID, ''));
});

test("a subscriber's delivery: its tries and cancellation name the subscriber; it is not retried on request", (t) => {
  const notice: SubscriberNotice = {
    id: 'e1',
    type: 'subscription.confirm',
    project_id: PROJECT,
    page: { id: PAGE, slug: 'shop', title: 'Shop' },
    timestamp: T0,
  };
  const about = { delivery_id: 'd1', subscriber_id: ID, page_id: PAGE, project_id: PROJECT, event_id: 'e1', notice };
  const scheduled: DomainEvent = { type: 'DeliveryScheduled', data: { ...about, scheduled_at: T0 } };
  const deliveries = deciderSpec(deliveryDecider);
  deliveries(t)
    .when({ type: 'ScheduleSubscriberDelivery', ...about, at: T0 })
    .then([scheduled]);
  deliveries(t)
    .given([scheduled])
    .when({ type: 'ScheduleSubscriberDelivery', ...about, at: T0 })
    .thenNothing();
  const attempt = {
    attempt: 1,
    outcome: 'failed' as const,
    final: true,
    status: 550,
    error: 'no such mailbox',
    response: null,
    duration_ms: 4,
  };
  deliveries(t)
    .given([scheduled])
    .when({ type: 'RecordAttempt', ...attempt, at: T0 })
    .then([
      {
        type: 'DeliveryAttempted',
        data: { delivery_id: 'd1', subscriber_id: ID, project_id: PROJECT, ...attempt, attempted_at: T0 },
      },
    ]);
  deliveries(t)
    .given([scheduled])
    .when({ type: 'CancelDelivery', reason: 'subscriber removed', at: T0 })
    .then([
      {
        type: 'DeliveryCancelled',
        data: {
          delivery_id: 'd1',
          subscriber_id: ID,
          project_id: PROJECT,
          reason: 'subscriber removed',
          cancelled_at: T0,
        },
      },
    ]);
  const failed: DomainEvent = {
    type: 'DeliveryAttempted',
    data: { delivery_id: 'd1', subscriber_id: ID, project_id: PROJECT, ...attempt, attempted_at: T0 },
  };
  deliveries(t).given([scheduled, failed]).when({ type: 'RequestRetry', at: T0 }).thenThrows({ code: 'not_found' });
});

test('the message: text and HTML say the same, escape what the team wrote, and carry the links', (t) => {
  const notice: SubscriberNotice = {
    id: 'e1',
    type: 'incident.updated',
    project_id: PROJECT,
    page: { id: PAGE, slug: 'shop', title: 'Shop <status>' },
    incident_id: 'i1',
    update_id: 'u1',
    title: 'Checkout & payments',
    timestamp: T0,
  };
  const mail = subscriberMail(
    notice,
    { kind: 'incident', status: 'monitoring', message: 'A fix is out <b>now</b>.', affects: ['checkout'] },
    { page: 'https://s.example.com/status/shop', unsubscribe: 'https://s.example.com/status/shop/x?id=1&token=2' },
  );
  t.is(mail.subject, '[Shop <status>] Incident update: Checkout & payments');
  t.regex(mail.text, /Monitoring \(2026-11-23 10:00 UTC\): A fix is out <b>now<\/b>\./);
  t.regex(mail.text, /Affects: checkout/);
  t.regex(mail.text, /Unsubscribe: https:\/\/s\.example\.com\/status\/shop\/x\?id=1&token=2/);
  t.regex(mail.html, /A fix is out &lt;b&gt;now&lt;\/b&gt;\./);
  t.regex(mail.html, /Checkout &amp; payments/);
  t.regex(mail.html, /<a href="https:\/\/s\.example\.com\/status\/shop\/x\?id=1&amp;token=2">Unsubscribe<\/a>/);
  t.false(mail.html.includes('<status>'));
  const confirm = subscriberMail(
    { ...notice, type: 'subscription.confirm' } as SubscriberNotice,
    { kind: 'confirm' },
    { page: 'https://s.example.com/status/shop', confirm: 'https://s.example.com/c' },
  );
  t.regex(confirm.text, /Confirm your subscription: https:\/\/s\.example\.com\/c/);
  t.false(confirm.text.includes('Unsubscribe'));
});
