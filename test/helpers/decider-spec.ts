import type { ExecutionContext } from 'ava';
import type { Decider } from '../../src/domain/decider.ts';
import { DomainError, type ErrorCode, type ErrorDetail } from '../../src/domain/errors.ts';
import { decodeEvent, type DomainEvent } from '../../src/domain/events.ts';

/** Given/when/then for pure deciders, after emmett's DeciderSpecification:
 *
 *    const spec = deciderSpec(monitorDecider);
 *    spec(t).given([created]).when(deleteIt).then([deleted]);
 *    spec(t).given([created, deleted]).when(deleteIt).thenThrows({ code: 'not_found' });
 *
 *  `given` folds the events with `evolve` from `initialState`; the outcome is `decide` on that
 *  state. Every event, given or decided, must also survive the trip through the log (JSON and the
 *  catalogue's codec): a fixture the log could not hold would test a state that cannot occur, and a
 *  decided event the codec refuses would make its stream unreadable. */

export interface ExpectedRefusal {
  code: ErrorCode;
  /** The exact message, or a pattern it must match. */
  message?: string | RegExp;
  /** The exact details, in order. */
  details?: readonly ErrorDetail[];
}

export interface Outcome {
  then(expected: readonly DomainEvent[]): void;
  thenNothing(): void;
  thenThrows(expected: ExpectedRefusal): DomainError;
}

export interface Given<C> {
  when(command: C): Outcome;
}

export interface Spec<C> extends Given<C> {
  given(events: readonly DomainEvent[]): Given<C>;
}

const assertStorable = (t: ExecutionContext, event: DomainEvent, role: string): void => {
  try {
    decodeEvent('spec', event.type, JSON.parse(JSON.stringify(event.data)));
  } catch (error) {
    t.fail(`${role} ${event.type} would not read back from the log: ${(error as Error).message}`);
  }
};

export const deciderSpec =
  <S, C>(decider: Decider<S, C>) =>
  (t: ExecutionContext): Spec<C> => {
    const given = (events: readonly DomainEvent[]): Given<C> => ({
      when(command: C): Outcome {
        for (const event of events) assertStorable(t, event, 'given event');
        const state = events.reduce(decider.evolve, decider.initialState);
        const decide = () => decider.decide(command, state);
        const decided = (): DomainEvent[] => {
          try {
            return decide();
          } catch (error) {
            const what = error instanceof DomainError ? `${error.code}: ${error.message}` : String(error);
            return t.fail(`expected events, but the command was refused (${what})`);
          }
        };
        return {
          // given / when / then, as emmett's DeciderSpecification reads
          // biome-ignore lint/suspicious/noThenProperty: a step of the specification, never awaited
          then(expected) {
            const actual = decided();
            for (const event of actual) assertStorable(t, event, 'decided event');
            t.deepEqual(actual, [...expected]);
          },
          thenNothing() {
            t.deepEqual(decided(), [], 'expected no events');
          },
          thenThrows({ code, message, details }) {
            const error = t.throws(decide, { instanceOf: DomainError });
            t.is(error.code, code);
            if (typeof message === 'string') t.is(error.message, message);
            else if (message) t.regex(error.message, message);
            if (details) t.deepEqual(error.details, details);
            return error;
          },
        };
      },
    });
    return { given, when: (command) => given([]).when(command) };
  };
