import type { LogFollower } from '../../projections/projector.ts';
import type { Leases, ProjectionStore } from '../views/store/port.ts';
import type { NotificationsStateQueries, NotificationsStateWriter } from './notifications/state/port.ts';
import type { PageEffectsStateQueries, PageEffectsStateWriter } from './status-pages/state/port.ts';
import type { SinkStates } from './sinks/state/port.ts';

/** A reactor turns log entries into side effects (a delivery sent, a checkpoint signed). What it
 *  did is its state, which the log cannot give back, so unlike a read model it is never dropped
 *  and replayed: a rebuild leaves it alone, and one with no state starts at the log's head. A
 *  reactor follows the log in a projector of its own, under the lease of its name, and commits
 *  its state with its checkpoint in its state store. */
export interface Reactor extends LogFollower {
  /** Ends the side effects in flight (waits for those that must be recorded); what is left is
   *  for whoever holds the lease next. */
  stop(): Promise<void>;
}

/** A reactor's state store: its state and its checkpoint, committed together and fenced by its
 *  lease (ProjectionStore's contract, less `reset`: nothing resets a reactor). */
export type ReactorStore<W> = Pick<ProjectionStore<W>, 'name' | 'checkpoint' | 'commit' | 'schemaCurrent' | 'migrate'>;

/** Every reactor's state in one deployment (the embedded state file, or MongoDB): each reactor's
 *  queries and store, and the reactors' leases, kept beside what they fence. */
export interface ReactorStates {
  readonly leases: Leases;
  readonly notifications: NotificationsStateQueries;
  /** The status pages' reactor: automatic incidents and subscriber mail. */
  readonly pageEffects: PageEffectsStateQueries;
  /** Each log sink's own store (checkpoint and progress), made when first asked for. */
  readonly sinks: SinkStates;
  readonly stores: {
    readonly notifications: ReactorStore<NotificationsStateWriter>;
    readonly pageEffects: ReactorStore<PageEffectsStateWriter>;
  };
  close(): Promise<void>;
}

/** A reactor's name in `ReactorStates` (its queries) and `ReactorStates['stores']` (its store). */
export type ReactorKey = keyof ReactorStates['stores'];
/** What the registry builds per reactor: the sinks' stores are made per sink, apart. */
export type RegisteredStates = Omit<ReactorStates, 'leases' | 'stores' | 'close' | 'sinks'>;
