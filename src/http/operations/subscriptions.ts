import * as t from 'io-ts';
import { closed, matching, Uuid } from '../../domain/codecs.ts';
import { DeliveryStatus } from '../../domain/delivery.ts';
import { Slug } from '../../domain/status-page.ts';
import { SubscribeInput, SubscriberEmail, SubscriberStatus, TOKEN_RE } from '../../domain/subscriber.ts';
import type { SubscriberView } from '../../views/subscribers/port.ts';
import { FORM } from '../middleware/body.ts';
import { Count, nullable, Pagination, type SameFields, Timestamp } from './answers.ts';
import { MAX_PAGE_SIZE, WRITERS, uuidParam } from './common.ts';
import { IntFromString } from '../middleware/query.ts';
import { json, noContent, operation, type Header, type TextAnswer } from './operation.ts';

/** Status pages' e-mail subscribers (docs/status-pages.md#subscribers): subscribing on a public
 *  page, the links of the messages, and the admin's list. Public answers never hold an address,
 *  nor say whether one was subscribed already. */

const PUBLIC = 'Public status pages';
const slug = { slug: { codec: Slug, what: 'status page' } };

const pageHeaders: Readonly<Record<string, Header>> = {
  'Cache-Control': { description: "`no-store`: a link's token is in its address", required: true },
  'Content-Security-Policy': { description: "the status pages' (a form may post to the same origin)", required: true },
  'X-Content-Type-Options': { description: '`nosniff`', required: true },
  'Referrer-Policy': { description: '`no-referrer`: the token never leaves in a Referer', required: true },
};
const html = (description: string): TextAnswer => ({
  description,
  headers: pageHeaders,
  text: { mediaTypes: ['text/html; charset=utf-8'], description },
});

/** A link of a message: the subscription, and its token for the link's purpose. */
export const LinkQuery = t.exact(
  t.type({ id: Uuid, token: matching('the token of the link (43 characters of base64url)', TOKEN_RE) }),
);

/** The button of a link's page posts no field; a mail client's one-click unsubscribe posts this one. */
const ButtonForm = closed(t.exact(t.type({})), 'field', 'a confirmation');
const OneClickForm = closed(
  t.exact(t.partial({ 'List-Unsubscribe': t.literal('One-Click') })),
  'field',
  'an unsubscribe request',
);

export const SubscribeAnswer = t.type({ status: t.literal('accepted'), message: t.string });

const notFound =
  'An unknown slug, an unpublished page, and a deployment without WATCHLOG_SMTP_HOST (no subscribing) are 404.';
const badLink = 'A wrong token, or a subscription that was removed, is 404.';

export const subscriptionOperations = {
  subscribe: operation({
    method: 'post',
    path: '/status/:slug/subscribe',
    tag: PUBLIC,
    auth: 'none',
    params: slug,
    summary: "Subscribe to a status page's news by e-mail",
    description:
      'Double opt-in: the address gets a message with a link to confirm, and nothing more until then. The ' +
      'answer is the same whether the address was subscribed already, pending or new (a confirmed one is sent ' +
      'nothing; a pending one its confirmation again, at most every 10 minutes). As JSON (202) or as the ' +
      "page's form (200, a page saying to check the inbox). At most 10 requests per client address and 200 " +
      `per page every 10 minutes, counted by each API process (429). ${notFound}`,
    body: {
      what: 'subscription',
      codec: SubscribeInput,
      mediaTypes: ['application/json', FORM],
      example: { email: 'ada@example.com' },
    },
    responses: {
      200: html('for a form: a page saying to check the inbox'),
      202: json('taken', SubscribeAnswer),
    },
    errors: [404, 429],
  }),
  confirmPage: operation({
    method: 'get',
    path: '/status/:slug/subscription/confirm',
    tag: PUBLIC,
    auth: 'none',
    params: slug,
    query: LinkQuery,
    summary: "A confirmation link's page",
    description: `A page with a button that confirms (mail scanners open links: a GET changes nothing). ${badLink}`,
    responses: { 200: html('the page') },
    errors: [404],
  }),
  confirm: operation({
    method: 'post',
    path: '/status/:slug/subscription/confirm',
    tag: PUBLIC,
    auth: 'none',
    params: slug,
    query: LinkQuery,
    summary: 'Confirm a subscription',
    description: `The button of the link's page. A confirmed subscription stays so. ${badLink}`,
    body: { what: 'confirmation', codec: ButtonForm, mediaTypes: [FORM] },
    responses: { 200: html('the subscription, confirmed (or cancelled already)') },
    errors: [404],
  }),
  unsubscribePage: operation({
    method: 'get',
    path: '/status/:slug/subscription/unsubscribe',
    tag: PUBLIC,
    auth: 'none',
    params: slug,
    query: LinkQuery,
    summary: "An unsubscribe link's page",
    description: `A page with a button that unsubscribes. ${badLink}`,
    responses: { 200: html('the page') },
    errors: [404],
  }),
  unsubscribe: operation({
    method: 'post',
    path: '/status/:slug/subscription/unsubscribe',
    tag: PUBLIC,
    auth: 'none',
    params: slug,
    query: LinkQuery,
    summary: 'Unsubscribe',
    description:
      "The button of the link's page (200, a page), or a mail client's RFC 8058 one-click unsubscribe: the " +
      "`List-Unsubscribe` header's address, posted `List-Unsubscribe=One-Click` (204). Repeating it changes " +
      `nothing. ${badLink}`,
    body: { what: 'unsubscribe request', codec: OneClickForm, mediaTypes: [FORM] },
    responses: { 200: html('unsubscribed'), 204: noContent('unsubscribed (one click)') },
    errors: [404],
  }),
};

const LastDelivery = t.type({
  id: Uuid,
  type: t.keyof({
    'subscription.confirm': null,
    'incident.opened': null,
    'incident.updated': null,
    'maintenance.scheduled': null,
    'maintenance.started': null,
  }),
  status: DeliveryStatus,
  at: Timestamp,
});

export const Subscriber = t.type({
  id: Uuid,
  page_id: Uuid,
  project_id: Uuid,
  email: SubscriberEmail,
  status: SubscriberStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
  requested_at: Timestamp,
  confirmed_at: nullable(Timestamp),
  unsubscribed_at: nullable(Timestamp),
  last_delivery: nullable(LastDelivery),
});
true satisfies SameFields<typeof Subscriber, SubscriberView>;

export const SubscribersAnswer = t.type({
  data: t.array(Subscriber),
  pagination: Pagination,
  counts: t.type({ pending: Count, confirmed: Count, unsubscribed: Count }),
});

export const SubscribersQuery = t.exact(
  t.partial({
    page: IntFromString(1, Number.MAX_SAFE_INTEGER),
    limit: IntFromString(1, MAX_PAGE_SIZE),
    status: SubscriberStatus,
  }),
);

export const subscriberOperations = {
  list: operation({
    method: 'get',
    path: '/v1/status-pages/:id/subscribers',
    tag: 'Status pages',
    auth: 'jwt',
    resource: 'statusPage',
    roles: WRITERS,
    query: SubscribersQuery,
    summary: "A status page's e-mail subscribers",
    description:
      'Newest first, paged (`limit` default 20), of one `status` when given, with the counts by status and ' +
      'the last delivery sent to each (a confirmation or a notice: pending, delivered, failed or cancelled). ' +
      'Addresses are personal data: auditors may not list them (403).',
    responses: { 200: json('a page of subscribers', SubscribersAnswer) },
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/status-pages/:id/subscribers/:subscriber_id',
    tag: 'Status pages',
    auth: 'jwt',
    resource: 'statusPage',
    roles: WRITERS,
    params: { subscriber_id: uuidParam('subscriber') },
    summary: 'Remove a subscriber',
    description:
      'Nothing more is sent to the address (a delivery not sent yet is cancelled). The log keeps the ' +
      "subscription's records: an erasure of the address (`POST /v1/projects/:id/erasures`) replaces them.",
    responses: { 204: noContent('removed') },
  }),
};
