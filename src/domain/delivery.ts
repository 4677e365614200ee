import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { CHANNEL_TYPES, type ChannelType } from './channel.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';
import { Notification } from './notification.ts';
import { SubscriberNotice } from './subscriber-mail.ts';

/** A delivery: one notification (a transition's, an alert's) to one channel, with every attempt
 *  made to send it. Its stream, `delivery-{id}`, is the delivery log's source (docs/notifications.md).
 *  A delivery may instead be one notice to a status page's subscriber (its target named by
 *  `subscriber_id` where a channel's is `channel_id`): the same life, tries and backoff, sent by
 *  the status pages' reactor; those are not in the channels' delivery log. */

export const ChannelTypeCodec = t.keyof(
  Object.fromEntries(CHANNEL_TYPES.map((c) => [c, null])) as Record<ChannelType, null>,
);

/** A delivery's id: the same for the same event and channel, so that scheduling it twice (a
 *  reactor replaying a batch after a crash) finds the first. A UUID (version 8: SHA-256 based). */
export const deliveryIdOf = (eventId: string, channelId: string): string => {
  const h = createHash('sha256').update(`${eventId}\n${channelId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** `maintenance`: a transition while a maintenance window covered the monitor. */
export const SkipReason = t.keyof({ quiet_period: null, stale: null, maintenance: null });
export type SkipReason = t.TypeOf<typeof SkipReason>;

const About = {
  delivery_id: t.string,
  channel_id: t.string,
  channel_type: ChannelTypeCodec,
  project_id: t.string,
  event_id: t.string,
  notification: Notification,
};

/** A subscriber's delivery: `page_id` the page it was subscribed on. */
const SubscriberAbout = {
  delivery_id: t.string,
  subscriber_id: t.string,
  page_id: t.string,
  project_id: t.string,
  event_id: t.string,
  notice: SubscriberNotice,
};

/** Whom a delivery's later events are about: a channel or a subscriber. */
const Target = t.union([t.type({ channel_id: t.string }), t.type({ subscriber_id: t.string })]);

export const deliveryEvents = {
  /** To be sent. */
  DeliveryScheduled: t.union([
    t.type({ ...About, scheduled_at: t.string }),
    t.type({ ...SubscriberAbout, scheduled_at: t.string }),
  ]),
  /** Not to be sent: a transition inside a maintenance window, inside the channel's quiet period
   *  for the monitor, or older than the delivery window when the reactor reached it. */
  DeliverySkipped: t.type({ ...About, reason: SkipReason, detail: t.string, skipped_at: t.string }),
  /** One try. `final`: no other try follows on its own (it got through, the answer will not
   *  change, or the tries are used up). */
  DeliveryAttempted: t.intersection([
    t.type({
      delivery_id: t.string,
      project_id: t.string,
      attempt: t.number,
      outcome: t.keyof({ delivered: null, failed: null }),
      final: t.boolean,
      status: t.union([t.null, t.number]),
      error: t.union([t.null, t.string]),
      response: t.union([t.null, t.string]),
      duration_ms: t.number,
      attempted_at: t.string,
    }),
    Target,
  ]),
  /** Someone asked for a failed (or cancelled) delivery to be sent again: a new round of tries. */
  DeliveryRetryRequested: t.type({
    delivery_id: t.string,
    channel_id: t.string,
    project_id: t.string,
    requested_at: t.string,
  }),
  /** Its channel was deleted or paused (its subscriber gone) before it got through. */
  DeliveryCancelled: t.intersection([
    t.type({ delivery_id: t.string, project_id: t.string, reason: t.string, cancelled_at: t.string }),
    Target,
  ]),
} as const;

export const DeliveryStatus = t.keyof({ pending: null, delivered: null, failed: null, skipped: null, cancelled: null });
export type DeliveryStatus = t.TypeOf<typeof DeliveryStatus>;
export type AttemptOutcome = t.TypeOf<typeof deliveryEvents.DeliveryAttempted>['outcome'];
export type DeliveryTarget = t.TypeOf<typeof Target>;

export interface DeliveryState {
  id: string | null;
  status: DeliveryStatus | null;
  channelId: string;
  /** A subscriber's delivery: the subscription (channelId is then empty). */
  subscriberId: string | null;
  /** The project of the event it notifies of. */
  projectId: string;
  /** Tries so far, over every round. */
  attempts: number;
  /** Tries before the current round began (a retry request starts one). */
  roundStart: number;
  notification: Notification | null;
  /** A subscriber's delivery: what it tells. */
  notice: SubscriberNotice | null;
}

export const initialDelivery: DeliveryState = {
  id: null,
  status: null,
  channelId: '',
  projectId: '',
  attempts: 0,
  roundStart: 0,
  notification: null,
  subscriberId: null,
  notice: null,
};

/** The target fields of a delivery's later events. */
const targetOf = (state: DeliveryState): DeliveryTarget =>
  state.subscriberId === null ? { channel_id: state.channelId } : { subscriber_id: state.subscriberId };

export const evolveDelivery = (state: DeliveryState, e: DomainEvent): DeliveryState => {
  switch (e.type) {
    case 'DeliveryScheduled':
      if ('subscriber_id' in e.data)
        return {
          ...state,
          id: e.data.delivery_id,
          subscriberId: e.data.subscriber_id,
          projectId: e.data.project_id,
          status: 'pending',
          notice: e.data.notice,
        };
      return {
        ...state,
        id: e.data.delivery_id,
        channelId: e.data.channel_id,
        projectId: e.data.project_id,
        status: 'pending',
        notification: e.data.notification,
      };
    case 'DeliverySkipped':
      return {
        ...state,
        id: e.data.delivery_id,
        channelId: e.data.channel_id,
        projectId: e.data.project_id,
        status: 'skipped',
        notification: e.data.notification,
      };
    case 'DeliveryAttempted':
      return {
        ...state,
        attempts: e.data.attempt,
        status: e.data.outcome === 'delivered' ? 'delivered' : e.data.final ? 'failed' : 'pending',
      };
    case 'DeliveryRetryRequested':
      return { ...state, status: 'pending', roundStart: state.attempts };
    case 'DeliveryCancelled':
      return { ...state, status: 'cancelled' };
    default:
      return state;
  }
};

/** Tries left in the current round. */
export const attemptsLeft = (state: DeliveryState, perRound: number): number =>
  perRound - (state.attempts - state.roundStart);

/** The quiet period: a DOWN for a monitor within `quietMinutes` of the last DOWN this channel was
 *  sent for that monitor is not sent. A recovery (UP), an alert or a test always is. */
export const inQuietPeriod = (
  kind: Notification['type'],
  quietMinutes: number,
  lastSentAt: string | null,
  at: string,
): boolean =>
  kind === 'monitor.down' &&
  quietMinutes > 0 &&
  lastSentAt !== null &&
  Date.parse(at) - Date.parse(lastSentAt) < quietMinutes * 60_000;

interface Addressed {
  delivery_id: string;
  channel_id: string;
  channel_type: ChannelType;
  project_id: string;
  event_id: string;
  notification: Notification;
}

/** A subscriber's delivery, as scheduled. */
export interface SubscriberAddressed {
  delivery_id: string;
  subscriber_id: string;
  page_id: string;
  project_id: string;
  event_id: string;
  notice: SubscriberNotice;
}

export type DeliveryCommand =
  | ({ type: 'ScheduleDelivery'; at: string } & Addressed)
  | ({ type: 'ScheduleSubscriberDelivery'; at: string } & SubscriberAddressed)
  | ({ type: 'SkipDelivery'; reason: SkipReason; detail: string; at: string } & Addressed)
  | {
      type: 'RecordAttempt';
      attempt: number;
      outcome: AttemptOutcome;
      final: boolean;
      status: number | null;
      error: string | null;
      response: string | null;
      duration_ms: number;
      at: string;
    }
  | { type: 'RequestRetry'; at: string }
  | { type: 'CancelDelivery'; reason: string; at: string };

export const deliveryDecider: Decider<DeliveryState, DeliveryCommand> = {
  initialState: initialDelivery,
  evolve: evolveDelivery,
  decide(command, state) {
    switch (command.type) {
      case 'ScheduleDelivery': {
        if (state.id !== null) return [];
        const { type: _, at, ...about } = command;
        return [{ type: 'DeliveryScheduled', data: { ...about, scheduled_at: at } }];
      }
      case 'ScheduleSubscriberDelivery': {
        if (state.id !== null) return [];
        const { type: _, at, ...about } = command;
        return [{ type: 'DeliveryScheduled', data: { ...about, scheduled_at: at } }];
      }
      case 'SkipDelivery': {
        if (state.id !== null) return [];
        const { type: _, at, ...about } = command;
        return [{ type: 'DeliverySkipped', data: { ...about, skipped_at: at } }];
      }
      case 'RecordAttempt': {
        // Another sender recorded this try first (a lease changing hands): nothing to add.
        if (state.status !== 'pending' || command.attempt !== state.attempts + 1) return [];
        const { type: _, at, ...attempt } = command;
        return [
          {
            type: 'DeliveryAttempted',
            data: {
              delivery_id: state.id!,
              ...targetOf(state),
              project_id: state.projectId,
              ...attempt,
              attempted_at: at,
            },
          },
        ];
      }
      case 'RequestRetry':
        // A subscriber's delivery is not in the channels' log, nor sent again on request.
        if (state.id === null || state.subscriberId !== null) throw notFound('delivery');
        if (state.status !== 'failed' && state.status !== 'cancelled') {
          throw new DomainError(
            'conflict',
            `only a failed or cancelled delivery can be sent again; this one is ${state.status}`,
          );
        }
        return [
          {
            type: 'DeliveryRetryRequested',
            data: {
              delivery_id: state.id,
              channel_id: state.channelId,
              project_id: state.projectId,
              requested_at: command.at,
            },
          },
        ];
      case 'CancelDelivery':
        if (state.status !== 'pending') return [];
        return [
          {
            type: 'DeliveryCancelled',
            data: {
              delivery_id: state.id!,
              ...targetOf(state),
              project_id: state.projectId,
              reason: command.reason,
              cancelled_at: command.at,
            },
          },
        ];
    }
  },
};
