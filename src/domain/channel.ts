import * as t from 'io-ts';
import { boundedString, closed, discriminated, Uuid } from './codecs.ts';
import { MonitorUrl } from './monitor.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** Notification channels of a project: where monitor transitions (and, opting in, alerts) go. */

export const ChannelEvents = t.array(t.keyof({ healthcheck: null, alert: null }));
export type ChannelEvents = t.TypeOf<typeof ChannelEvents>;

/** As the browser's `PushSubscription.toJSON()` gives it (its other keys, such as
 *  `expirationTime`, are let through: browsers send them). */
export const PushSubscriptionInput = t.type({
  endpoint: MonitorUrl,
  keys: t.type({ p256dh: boundedString(1, 200), auth: boundedString(1, 200) }),
});

const common = { project_id: Uuid };
const optional = t.partial({ events: ChannelEvents, active: t.boolean });

/** A webhook or a Web Push subscription, chosen by `type`; unknown fields are refused. */
export const ChannelCreateInput = discriminated('type', {
  webhook: closed(t.exact(t.intersection([t.type({ ...common, type: t.literal('webhook'), url: MonitorUrl }), t.partial({ secret: boundedString(8, 256) }), optional]))),
  webpush: closed(t.exact(t.intersection([t.type({ ...common, type: t.literal('webpush'), subscription: PushSubscriptionInput }), optional]))),
}, 'a channel');
export type ChannelCreateInput = t.TypeOf<typeof ChannelCreateInput>;

export const ChannelUpdateInput = closed(t.exact(t.partial({ active: t.boolean, events: ChannelEvents })), 'field', 'a channel update');
export type ChannelUpdateInput = t.TypeOf<typeof ChannelUpdateInput>;

const Target = t.union([
  t.intersection([t.type({ type: t.literal('webhook'), url: t.string }), t.partial({ secret: t.string })]),
  t.type({ type: t.literal('webpush'), subscription: t.type({ endpoint: t.string, keys: t.type({ p256dh: t.string, auth: t.string }) }) }),
]);
export type ChannelTarget = t.TypeOf<typeof Target>;

export const channelEvents = {
  ChannelCreated: t.type({ channel_id: t.string, project_id: t.string, target: Target, events: ChannelEvents, active: t.boolean, created_at: t.string }),
  ChannelUpdated: t.type({ channel_id: t.string, project_id: t.string, changes: t.exact(t.partial({ active: t.boolean, events: ChannelEvents })), updated_at: t.string }),
  ChannelDeleted: t.type({ channel_id: t.string, project_id: t.string, deleted_at: t.string }),
  /** The push service said the subscription is gone (404/410): nothing will ever reach it again. */
  ChannelDeactivated: t.type({ channel_id: t.string, project_id: t.string, reason: t.string, deactivated_at: t.string }),
} as const;

export interface ChannelState { id: string | null; projectId: string; deleted: boolean; active: boolean; events: ChannelEvents }
export const initialChannel: ChannelState = { id: null, projectId: '', deleted: false, active: false, events: [] };

export const evolveChannel = (state: ChannelState, e: DomainEvent): ChannelState => {
  switch (e.type) {
    case 'ChannelCreated':
      return { ...state, id: e.data.channel_id, projectId: e.data.project_id, active: e.data.active, events: e.data.events };
    case 'ChannelUpdated':
      return { ...state, ...e.data.changes };
    case 'ChannelDeactivated':
      return { ...state, active: false };
    case 'ChannelDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

const sameEvents = (a: ChannelEvents, b: ChannelEvents) => a.length === b.length && a.every((kind) => b.includes(kind));

export const assertChannelExists = (state: ChannelState): void => {
  if (state.id === null || state.deleted) throw notFound('channel');
};

/** The channel's target from the input: secrets and subscription keys stay in the log and the
 *  read store, never in an API answer. */
export const targetOf = (input: ChannelCreateInput): ChannelTarget =>
  input.type === 'webhook'
    ? { type: 'webhook', url: input.url, ...(input.secret === undefined ? {} : { secret: input.secret }) }
    : { type: 'webpush', subscription: input.subscription };

export type ChannelCommand =
  | { type: 'CreateChannel'; channel_id: string; project_id: string; target: ChannelTarget; events: ChannelEvents; active: boolean; at: string }
  | { type: 'UpdateChannel'; changes: ChannelUpdateInput; at: string }
  | { type: 'DeleteChannel'; at: string }
  /** The push service no longer knows the subscription: stop sending to it (once). */
  | { type: 'DeactivateChannel'; reason: string; at: string };

export const channelDecider: Decider<ChannelState, ChannelCommand> = {
  initialState: initialChannel,
  evolve: evolveChannel,
  decide(command, state) {
    switch (command.type) {
      case 'CreateChannel': {
        if (state.id !== null) throw new DomainError('conflict', 'channel already exists');
        const { channel_id, project_id, target, events, active, at } = command;
        return [{ type: 'ChannelCreated', data: { channel_id, project_id, target, events, active, created_at: at } }];
      }
      case 'UpdateChannel': {
        assertChannelExists(state);
        const { active, events } = command.changes;
        const changes = {
          ...(active === undefined || active === state.active ? {} : { active }),
          ...(events === undefined || sameEvents(events, state.events) ? {} : { events }),
        };
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'ChannelUpdated', data: { channel_id: state.id!, project_id: state.projectId, changes, updated_at: command.at } }];
      }
      case 'DeleteChannel':
        assertChannelExists(state);
        return [{ type: 'ChannelDeleted', data: { channel_id: state.id!, project_id: state.projectId, deleted_at: command.at } }];
      case 'DeactivateChannel':
        if (state.id === null || state.deleted || !state.active) return [];
        return [{ type: 'ChannelDeactivated', data: { channel_id: state.id, project_id: state.projectId, reason: command.reason, deactivated_at: command.at } }];
    }
  },
};
