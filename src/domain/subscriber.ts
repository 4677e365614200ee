import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import * as t from 'io-ts';
import { closed } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';
import { withSchema } from './json-schema.ts';

/** A status page's e-mail subscribers (docs/status-pages.md#subscribers), with double opt-in: one
 *  stream per page and address (`subscriber-{id}`), its id derived from both, so subscribing
 *  twice finds the same stream. The address is personal data: the erasure of an identifier
 *  equal to it removes the subscription and replaces its records in the log by tombstones. */

/** WHATWG's "valid e-mail address" with a dotted domain: no space, comma, quote or angle bracket,
 *  so an address is never read as two, nor as a header. Kept lower-case. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL_RE = new RegExp(`^[A-Za-z0-9.!#$%&'*+/=?^_\`{|}~-]+@${LABEL}(?:\\.${LABEL})+$`);
export const MAX_EMAIL_LENGTH = 254;

export const SubscriberEmail = withSchema(
  new t.Type<string, string, unknown>(
    'an e-mail address',
    (u): u is string => typeof u === 'string' && u.length <= MAX_EMAIL_LENGTH && EMAIL_RE.test(u),
    (u, c) => {
      const s = typeof u === 'string' ? u.trim() : u;
      return typeof s === 'string' && s.length <= MAX_EMAIL_LENGTH && EMAIL_RE.test(s)
        ? t.success(s.toLowerCase())
        : t.failure(u, c);
    },
    t.identity,
  ),
  { type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH },
);

/** `POST /status/:slug/subscribe`, as JSON or as the page's form. */
export const SubscribeInput = closed(t.exact(t.type({ email: SubscriberEmail })), 'field', 'a subscription');
export type SubscribeInput = t.TypeOf<typeof SubscribeInput>;

/** How the address is compared: what the codec keeps (trimmed, lower-case). */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** The subscription of `email` to a page: a UUID-shaped digest (version nibble 5) of both. */
export const subscriberIdOf = (pageId: string, email: string): string => {
  const h = createHash('sha256')
    .update(`subscriber\n${pageId}\n${normaliseEmail(email)}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export const SubscriberStatus = t.keyof({ pending: null, confirmed: null, unsubscribed: null });
export type SubscriberStatus = t.TypeOf<typeof SubscriberStatus>;

export const RemovalReason = t.keyof({ admin: null, erasure: null });
export type RemovalReason = t.TypeOf<typeof RemovalReason>;

const ids = { subscriber_id: t.string, page_id: t.string, project_id: t.string };

export const subscriberEvents = {
  /** Asked for (again): a confirmation is to be sent. */
  SubscriberRequested: t.type({ ...ids, email: t.string, requested_at: t.string }),
  SubscriberConfirmed: t.type({ ...ids, confirmed_at: t.string }),
  SubscriberUnsubscribed: t.type({ ...ids, unsubscribed_at: t.string }),
  /** By an admin, or by the erasure of the address. */
  SubscriberRemoved: t.type({ ...ids, reason: RemovalReason, removed_at: t.string }),
} as const;

/** A pending subscription asked for again gets its confirmation again, but not more often. */
export const RESEND_AFTER_MS = 10 * 60_000;

export interface SubscriberState {
  id: string | null;
  pageId: string;
  projectId: string;
  email: string | null;
  status: SubscriberStatus | 'removed' | null;
  /** When the last confirmation was asked for. */
  requestedAt: string | null;
}

export const initialSubscriber: SubscriberState = {
  id: null,
  pageId: '',
  projectId: '',
  email: null,
  status: null,
  requestedAt: null,
};

export const evolveSubscriber = (state: SubscriberState, e: DomainEvent): SubscriberState => {
  switch (e.type) {
    case 'SubscriberRequested':
      return {
        id: e.data.subscriber_id,
        pageId: e.data.page_id,
        projectId: e.data.project_id,
        email: e.data.email,
        status: 'pending',
        requestedAt: e.data.requested_at,
      };
    case 'SubscriberConfirmed':
      return { ...state, status: 'confirmed' };
    case 'SubscriberUnsubscribed':
      return { ...state, status: 'unsubscribed' };
    case 'SubscriberRemoved':
      // An erasure leaves this record and replaces the ones before it: the address goes.
      return { ...state, id: e.data.subscriber_id, pageId: e.data.page_id, email: null, status: 'removed' };
    default:
      return state;
  }
};

export type SubscriberCommand =
  | {
      type: 'RequestSubscription';
      subscriber_id: string;
      page_id: string;
      project_id: string;
      email: string;
      at: string;
    }
  | { type: 'ConfirmSubscription'; at: string }
  | { type: 'Unsubscribe'; at: string }
  | { type: 'RemoveSubscriber'; reason: RemovalReason; at: string };

const idsOf = (state: SubscriberState) => ({
  subscriber_id: state.id!,
  page_id: state.pageId,
  project_id: state.projectId,
});

const exists = (state: SubscriberState): boolean => state.id !== null && state.status !== 'removed';

export const subscriberDecider: Decider<SubscriberState, SubscriberCommand> = {
  initialState: initialSubscriber,
  evolve: evolveSubscriber,
  decide(command, state) {
    switch (command.type) {
      case 'RequestSubscription': {
        if (state.status === 'confirmed') return [];
        if (
          state.status === 'pending' &&
          state.requestedAt !== null &&
          Date.parse(command.at) - Date.parse(state.requestedAt) < RESEND_AFTER_MS
        )
          return [];
        const { type: _, at, ...data } = command;
        return [{ type: 'SubscriberRequested', data: { ...data, requested_at: at } }];
      }
      case 'ConfirmSubscription':
        if (!exists(state)) throw notFound('subscription');
        if (state.status === 'confirmed') return [];
        if (state.status === 'unsubscribed')
          throw new DomainError('conflict', 'this subscription was cancelled: subscribe again on the status page');
        return [{ type: 'SubscriberConfirmed', data: { ...idsOf(state), confirmed_at: command.at } }];
      case 'Unsubscribe':
        if (state.id === null) throw notFound('subscription');
        if (state.status === 'unsubscribed' || state.status === 'removed') return [];
        return [{ type: 'SubscriberUnsubscribed', data: { ...idsOf(state), unsubscribed_at: command.at } }];
      case 'RemoveSubscriber':
        if (!exists(state)) throw notFound('subscriber');
        return [
          { type: 'SubscriberRemoved', data: { ...idsOf(state), reason: command.reason, removed_at: command.at } },
        ];
    }
  },
};

/** What a link of a subscriber's mail does. */
export type LinkPurpose = 'confirm' | 'unsubscribe';

/** The key of the links' tokens, derived from the deployment's JWT secret (HKDF-SHA256, a label
 *  of its own): a token is never stored, and one made with any other key never matches. */
export const subscriptionKey = (jwtSecret: string): Buffer =>
  Buffer.from(hkdfSync('sha256', jwtSecret, '', 'watchlog status page subscriber links', 32));

/** HMAC-SHA256 of `${purpose}:${id}`, base64url (43 characters). */
export const subscriptionToken = (key: Buffer, purpose: LinkPurpose, subscriberId: string): string =>
  createHmac('sha256', key).update(`${purpose}:${subscriberId}`).digest('base64url');

/** In constant time: a wrong token takes as long to refuse whatever it shares with the right one. */
export const tokenMatches = (key: Buffer, purpose: LinkPurpose, subscriberId: string, token: string): boolean => {
  const expected = Buffer.from(subscriptionToken(key, purpose, subscriberId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

export const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
