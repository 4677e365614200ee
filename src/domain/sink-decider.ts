import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';
import type { SinkFilter, SinkTarget, SinkUpdateInput } from './sink.ts';

export interface SinkState {
  id: string | null;
  projectId: string;
  deleted: boolean;
  active: boolean;
  degraded: boolean;
  name: string | null;
  filter: SinkFilter;
}
export const initialSink: SinkState = {
  id: null,
  projectId: '',
  deleted: false,
  active: false,
  degraded: false,
  name: null,
  filter: {},
};

export const evolveSink = (state: SinkState, e: DomainEvent): SinkState => {
  switch (e.type) {
    case 'SinkCreated':
      return {
        ...state,
        id: e.data.sink_id,
        projectId: e.data.project_id,
        active: e.data.active,
        name: e.data.name,
        filter: e.data.filter as SinkFilter,
      };
    case 'SinkUpdated': {
      const { active, name, filter } = e.data.changes;
      return {
        ...state,
        ...(active === undefined ? {} : { active }),
        ...(name === undefined ? {} : { name }),
        ...(filter === undefined ? {} : { filter }),
      };
    }
    case 'SinkDegraded':
      return { ...state, degraded: true };
    case 'SinkRecovered':
      return { ...state, degraded: false };
    case 'SinkDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

const sameList = (a: readonly string[] = [], b: readonly string[] = []) =>
  a.length === b.length && a.every((x) => b.includes(x));
const sameFilter = (a: SinkFilter, b: SinkFilter) =>
  sameList(a.event_type, b.event_type) && sameList(a.service_name, b.service_name);

const assertSinkExists = (state: SinkState): void => {
  if (state.id === null || state.deleted) throw notFound('sink');
};

export type SinkCommand =
  | {
      type: 'CreateSink';
      sink_id: string;
      project_id: string;
      target: SinkTarget;
      name: string | null;
      active: boolean;
      filter: SinkFilter;
      at: string;
    }
  | { type: 'UpdateSink'; changes: SinkUpdateInput; at: string }
  | { type: 'DeleteSink'; at: string }
  /** `failures` batches in a row failed (once, until one gets through). */
  | { type: 'DegradeSink'; failures: number; reason: string; at: string }
  | { type: 'RecoverSink'; at: string };

export const sinkDecider: Decider<SinkState, SinkCommand> = {
  initialState: initialSink,
  evolve: evolveSink,
  decide(command, state) {
    switch (command.type) {
      case 'CreateSink': {
        if (state.id !== null) throw new DomainError('conflict', 'sink already exists');
        const { sink_id, project_id, target, name, active, filter, at } = command;
        return [{ type: 'SinkCreated', data: { sink_id, project_id, target, name, active, filter, created_at: at } }];
      }
      case 'UpdateSink': {
        assertSinkExists(state);
        const { active, name, filter } = command.changes;
        const changes = {
          ...(active === undefined || active === state.active ? {} : { active }),
          ...(name === undefined || name === state.name ? {} : { name }),
          ...(filter === undefined || sameFilter(filter, state.filter) ? {} : { filter }),
        };
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'SinkUpdated',
            data: { sink_id: state.id!, project_id: state.projectId, changes, updated_at: command.at },
          },
        ];
      }
      case 'DeleteSink':
        assertSinkExists(state);
        return [
          { type: 'SinkDeleted', data: { sink_id: state.id!, project_id: state.projectId, deleted_at: command.at } },
        ];
      case 'DegradeSink':
        if (state.id === null || state.deleted || state.degraded) return [];
        return [
          {
            type: 'SinkDegraded',
            data: {
              sink_id: state.id,
              project_id: state.projectId,
              failures: command.failures,
              reason: command.reason,
              degraded_at: command.at,
            },
          },
        ];
      case 'RecoverSink':
        if (state.id === null || state.deleted || !state.degraded) return [];
        return [
          { type: 'SinkRecovered', data: { sink_id: state.id, project_id: state.projectId, recovered_at: command.at } },
        ];
    }
  },
};
