import pRetry, { AbortError } from 'p-retry';
import { recordAttempt } from '../../commands/deliveries.ts';
import type { CommandContext, CommandDeps } from '../../commands/handle.ts';
import { attemptsLeft, type DeliveryState } from '../../domain/delivery.ts';
import type { SendAnswer } from './send.ts';

export interface RetryOptions {
  /** Tries of one delivery, the first included, before it is given up (a retry request gives it
   *  as many again). */
  attempts: number;
  /** The first backoff; each next one doubles, up to `maxTimeoutMs`, times a random factor
   *  from 1 to 2 (jitter, so that many deliveries failing together do not retry together). */
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 5, minTimeoutMs: 500, maxTimeoutMs: 30_000 };

/** A try that may pass later: p-retry backs off and tries again. */
class TryAgain extends Error {}

/** One round of tries of a pending delivery, as every reactor that delivers makes it. */
export interface Round {
  readonly deps: CommandDeps;
  /** The delivery, as its stream says now (read again just before). */
  readonly id: string;
  readonly state: DeliveryState;
  readonly retry: RetryOptions;
  /** Ends the waits between tries (the reactor stopping). */
  readonly signal: AbortSignal;
  readonly ctx: CommandContext;
  /** Whether this process may still send (it holds the reactor's lease). */
  holding(): Promise<boolean>;
  /** One try. */
  send(): Promise<SendAnswer>;
  /** After a try is recorded; `final`: no other try follows. */
  recorded(answer: SendAnswer, attempt: number, final: boolean): Promise<void>;
}

/** Tries a delivery with p-retry's backoff, recording every try in its stream before the next
 *  (`recordAttempt`): a try another sender recorded first, or a lease lost, ends the round.
 *  Resolves once the round is over (or cut short by `signal`); throws only when a try could not be
 *  recorded, which the lanes take again later. */
export const deliverRound = async (round: Round): Promise<void> => {
  const left = attemptsLeft(round.state, round.retry.attempts);
  if (left <= 0) return;
  await pRetry(
    async (tryNumber) => {
      if (!(await round.holding())) throw new AbortError("the reactor's lease is held elsewhere");
      const attempt = round.state.attempts + tryNumber;
      const started = performance.now();
      const answer = await round.send();
      const final = answer.ok || !answer.retryable || tryNumber >= left;
      const recorded = await recordAttempt(
        round.deps,
        round.id,
        {
          attempt,
          outcome: answer.ok ? 'delivered' : 'failed',
          final,
          status: answer.status,
          error: answer.error,
          response: answer.response,
          duration_ms: Math.round(performance.now() - started),
        },
        round.ctx,
      );
      if (recorded.events.length === 0) throw new AbortError('another sender recorded this try');
      await round.recorded(answer, attempt, final);
      if (!final) throw new TryAgain(answer.error ?? 'failed');
    },
    {
      retries: left - 1,
      factor: 2,
      minTimeout: round.retry.minTimeoutMs,
      maxTimeout: round.retry.maxTimeoutMs,
      randomize: true,
      signal: round.signal,
      shouldRetry: ({ error }) => error instanceof TryAgain,
    },
  ).catch((error: unknown) => {
    // The try was recorded (TryAgain left over when stopping) or is someone else's to make.
    if (error instanceof TryAgain || error instanceof AbortError || round.signal.aborted) return;
    throw error;
  });
};
