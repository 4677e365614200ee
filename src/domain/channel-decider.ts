import type { ChannelEvents, ChannelTarget, ChannelUpdateInput, ProjectScope } from './channel.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

export interface ChannelState {
  id: string | null;
  projectId: string;
  scope: ProjectScope;
  deleted: boolean;
  active: boolean;
  degraded: boolean;
  events: ChannelEvents;
  name: string | null;
  quietMinutes: number;
  managedBy: string | null;
}
export const initialChannel: ChannelState = {
  id: null,
  projectId: '',
  scope: 'project',
  deleted: false,
  active: false,
  degraded: false,
  events: [],
  name: null,
  quietMinutes: 0,
  managedBy: null,
};

export const evolveChannel = (state: ChannelState, e: DomainEvent): ChannelState => {
  switch (e.type) {
    case 'ChannelCreated':
      return {
        ...state,
        id: e.data.channel_id,
        projectId: e.data.project_id,
        active: e.data.active,
        events: e.data.events,
        scope: e.data.project_scope ?? 'project',
        name: e.data.name ?? null,
        quietMinutes: e.data.quiet_minutes ?? 0,
        managedBy: e.data.managed_by ?? null,
      };
    case 'ChannelUpdated': {
      const { active, events, name, quiet_minutes, managed_by } = e.data.changes;
      return {
        ...(managed_by === undefined ? {} : { managedBy: managed_by }),
        ...state,
        ...(active === undefined ? {} : { active }),
        ...(events === undefined ? {} : { events }),
        ...(name === undefined ? {} : { name }),
        ...(quiet_minutes === undefined ? {} : { quietMinutes: quiet_minutes }),
      };
    }
    case 'ChannelDeactivated':
      return { ...state, active: false };
    case 'ChannelDegraded':
      return { ...state, degraded: true };
    case 'ChannelRecovered':
      return { ...state, degraded: false };
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

export type ChannelCommand =
  | {
      type: 'CreateChannel';
      channel_id: string;
      project_id: string;
      target: ChannelTarget;
      events: ChannelEvents;
      active: boolean;
      name: string | null;
      project_scope: ProjectScope;
      quiet_minutes: number;
      managed_by?: string;
      at: string;
    }
  | { type: 'UpdateChannel'; changes: ChannelUpdateInput; at: string }
  | { type: 'DeleteChannel'; at: string }
  /** The push service no longer knows the subscription: stop sending to it (once). */
  | { type: 'DeactivateChannel'; reason: string; at: string }
  /** `failures` deliveries in a row failed (once, until a delivery gets through). */
  | { type: 'DegradeChannel'; failures: number; reason: string; at: string }
  | { type: 'RecoverChannel'; at: string };

export const channelDecider: Decider<ChannelState, ChannelCommand> = {
  initialState: initialChannel,
  evolve: evolveChannel,
  decide(command, state) {
    switch (command.type) {
      case 'CreateChannel': {
        if (state.id !== null) throw new DomainError('conflict', 'channel already exists');
        const { channel_id, project_id, target, events, active, name, project_scope, quiet_minutes, managed_by, at } =
          command;
        return [
          {
            type: 'ChannelCreated',
            data: {
              channel_id,
              project_id,
              target,
              events,
              active,
              name,
              project_scope,
              quiet_minutes,
              ...(managed_by === undefined ? {} : { managed_by }),
              created_at: at,
            },
          },
        ];
      }
      case 'UpdateChannel': {
        assertChannelExists(state);
        const { active, events, name, quiet_minutes, managed_by } = command.changes;
        const changes = {
          ...(active === undefined || active === state.active ? {} : { active }),
          ...(events === undefined || sameEvents(events, state.events) ? {} : { events }),
          ...(name === undefined || name === state.name ? {} : { name }),
          ...(quiet_minutes === undefined || quiet_minutes === state.quietMinutes ? {} : { quiet_minutes }),
          ...(managed_by === undefined || managed_by === state.managedBy ? {} : { managed_by }),
        };
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'ChannelUpdated',
            data: { channel_id: state.id!, project_id: state.projectId, changes, updated_at: command.at },
          },
        ];
      }
      case 'DeleteChannel':
        assertChannelExists(state);
        return [
          {
            type: 'ChannelDeleted',
            data: { channel_id: state.id!, project_id: state.projectId, deleted_at: command.at },
          },
        ];
      case 'DeactivateChannel':
        if (state.id === null || state.deleted || !state.active) return [];
        return [
          {
            type: 'ChannelDeactivated',
            data: {
              channel_id: state.id,
              project_id: state.projectId,
              reason: command.reason,
              deactivated_at: command.at,
            },
          },
        ];
      case 'DegradeChannel':
        if (state.id === null || state.deleted || state.degraded) return [];
        return [
          {
            type: 'ChannelDegraded',
            data: {
              channel_id: state.id,
              project_id: state.projectId,
              failures: command.failures,
              reason: command.reason,
              degraded_at: command.at,
            },
          },
        ];
      case 'RecoverChannel':
        if (state.id === null || state.deleted || !state.degraded) return [];
        return [
          {
            type: 'ChannelRecovered',
            data: { channel_id: state.id, project_id: state.projectId, recovered_at: command.at },
          },
        ];
    }
  },
};
