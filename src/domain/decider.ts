import type { DomainEvent } from './events.ts';

/** An aggregate as pure functions: the state its stream folds into, and the events a command
 *  makes of that state: none when there is nothing to do, a DomainError when it is refused.
 *  Commands carry everything they need (ids, times), so `decide` is deterministic. */
export interface Decider<S, C> {
  readonly initialState: S;
  evolve(state: S, event: DomainEvent): S;
  decide(command: C, state: S): DomainEvent[];
}
