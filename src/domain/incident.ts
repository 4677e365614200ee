import * as t from 'io-ts';
import { boundedArray, boundedString, closed, Uuid } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** Incidents: what a team tells its status pages' readers about an outage, one stream each
 *  (`incident-{id}`), with its updates. An incident shows on the pages of its project that show
 *  one of its monitors, or on every page of the project when it names none. */

export const IncidentStatus = t.keyof(
  { investigating: null, identified: null, monitoring: null, resolved: null },
  'investigating | identified | monitoring | resolved',
);
export type IncidentStatus = t.TypeOf<typeof IncidentStatus>;

export const IncidentImpact = t.keyof(
  { none: null, minor: null, major: null, critical: null },
  'none | minor | major | critical',
);
export type IncidentImpact = t.TypeOf<typeof IncidentImpact>;

export const MAX_INCIDENT_MONITORS = 100;
const Message = boundedString(1, 10_000);

export const IncidentCreateInput = closed(
  t.exact(
    t.intersection([
      t.type({ project_id: Uuid, title: boundedString(1, 200), status: IncidentStatus, message: Message }),
      t.partial({
        impact: IncidentImpact,
        monitor_ids: boundedArray(Uuid, 0, MAX_INCIDENT_MONITORS, `a list of at most ${MAX_INCIDENT_MONITORS} ids`),
      }),
    ]),
  ),
  'field',
  'an incident',
);
export type IncidentCreateInput = t.TypeOf<typeof IncidentCreateInput>;

/** An update may also change the impact (an outage found to be wider than first said). */
export const IncidentUpdateInput = closed(
  t.exact(
    t.intersection([t.type({ status: IncidentStatus, message: Message }), t.partial({ impact: IncidentImpact })]),
  ),
  'field',
  'an incident update',
);
export type IncidentUpdateInput = t.TypeOf<typeof IncidentUpdateInput>;

/** Opened by a status page on its own: which monitor's DOWN (the transition's event) opened it. */
export const AutoOpened = t.type({ monitor_id: t.string, down_event_id: t.string });
export type AutoOpened = t.TypeOf<typeof AutoOpened>;

const ids = { incident_id: t.string, project_id: t.string };

export const incidentEvents = {
  IncidentOpened: t.intersection([
    t.type({
      ...ids,
      title: t.string,
      status: IncidentStatus,
      impact: IncidentImpact,
      monitor_ids: t.array(t.string),
      update_id: t.string,
      message: t.string,
      opened_at: t.string,
    }),
    t.partial({ auto: AutoOpened }),
  ]),
  IncidentUpdatePosted: t.intersection([
    t.type({ ...ids, update_id: t.string, status: IncidentStatus, message: t.string, posted_at: t.string }),
    t.partial({ impact: IncidentImpact }),
  ]),
  IncidentDeleted: t.type({ ...ids, deleted_at: t.string }),
} as const;

export interface IncidentState {
  id: string | null;
  projectId: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  deleted: boolean;
  updates: number;
}

export const initialIncident: IncidentState = {
  id: null,
  projectId: '',
  status: 'investigating',
  impact: 'none',
  deleted: false,
  updates: 0,
};

/** An incident keeps at most this many updates: a page shows them all. */
export const MAX_INCIDENT_UPDATES = 200;

export const evolveIncident = (state: IncidentState, e: DomainEvent): IncidentState => {
  switch (e.type) {
    case 'IncidentOpened':
      return {
        id: e.data.incident_id,
        projectId: e.data.project_id,
        status: e.data.status,
        impact: e.data.impact,
        deleted: false,
        updates: 1,
      };
    case 'IncidentUpdatePosted':
      return { ...state, status: e.data.status, impact: e.data.impact ?? state.impact, updates: state.updates + 1 };
    case 'IncidentDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export type IncidentCommand =
  | {
      type: 'OpenIncident';
      incident_id: string;
      update_id: string;
      project_id: string;
      title: string;
      status: IncidentStatus;
      impact: IncidentImpact;
      monitor_ids: string[];
      message: string;
      auto: AutoOpened | null;
      at: string;
    }
  | {
      type: 'PostIncidentUpdate';
      update_id: string;
      status: IncidentStatus;
      message: string;
      impact?: IncidentImpact;
      at: string;
    }
  /** An automatic resolution: nothing when the incident is resolved already (by hand, or before). */
  | { type: 'ResolveAutomatically'; update_id: string; message: string; at: string }
  | { type: 'DeleteIncident'; at: string };

const assertExists = (state: IncidentState) => {
  if (state.id === null || state.deleted) throw notFound('incident');
};

export const incidentDecider: Decider<IncidentState, IncidentCommand> = {
  initialState: initialIncident,
  evolve: evolveIncident,
  decide(command, state) {
    switch (command.type) {
      case 'OpenIncident': {
        if (state.id !== null) {
          // An automatic incident's id comes from the DOWN that opened it: a replay finds it.
          if (command.auto !== null) return [];
          throw new DomainError('conflict', 'incident already exists');
        }
        const { type: _, at, auto, ...data } = command;
        return [{ type: 'IncidentOpened', data: { ...data, ...(auto === null ? {} : { auto }), opened_at: at } }];
      }
      case 'PostIncidentUpdate': {
        assertExists(state);
        if (state.updates >= MAX_INCIDENT_UPDATES)
          throw new DomainError('conflict', `an incident keeps at most ${MAX_INCIDENT_UPDATES} updates`);
        const { type: _, at, impact, ...data } = command;
        return [
          {
            type: 'IncidentUpdatePosted',
            data: {
              incident_id: state.id!,
              project_id: state.projectId,
              ...data,
              ...(impact === undefined ? {} : { impact }),
              posted_at: at,
            },
          },
        ];
      }
      case 'ResolveAutomatically':
        if (state.id === null || state.deleted || state.status === 'resolved') return [];
        return [
          {
            type: 'IncidentUpdatePosted',
            data: {
              incident_id: state.id,
              project_id: state.projectId,
              update_id: command.update_id,
              status: 'resolved',
              message: command.message,
              posted_at: command.at,
            },
          },
        ];
      case 'DeleteIncident':
        assertExists(state);
        return [
          {
            type: 'IncidentDeleted',
            data: { incident_id: state.id!, project_id: state.projectId, deleted_at: command.at },
          },
        ];
    }
  },
};
