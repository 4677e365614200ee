import { backoffDelay, parseRetryAfter } from './backoff.ts';

/** One attempt's answer as the retry decision reads it. `body` is the parsed answer (only an
 *  error's `details` are read); `network` says why there was no answer. */
export type RetryAnswer =
  | { readonly status: number; readonly retryAfter: string | undefined; readonly body: unknown }
  | { readonly network: string };

/** What an answer leads to: the batch settled, halved, or sent again after a delay. */
export type RetryStep =
  | { readonly settle: 'sent' | 'rejected' | 'failed' }
  | { readonly split: true }
  | { readonly retryInMs: number };

export interface RetryOptions {
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
}

/** Whether a 400's details name an item of the batch (`<index>.<field>`). */
const namesAnItem = (body: unknown): boolean => {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const details = typeof error === 'object' && error !== null ? (error as { details?: unknown }).details : undefined;
  return (
    Array.isArray(details) &&
    details.some((d: unknown) => {
      const path = typeof d === 'object' && d !== null ? (d as { path?: unknown }).path : undefined;
      return typeof path === 'string' && /^\d/.test(path);
    })
  );
};

/** The decision for the answer to attempt `attempt` (0 for the first) of a batch of
 *  `batchEvents` events, as packages/conformance/README.md states it; `random` is the jitter's
 *  draw in [0, 1), `now` the clock (ms) a Retry-After date is read against. */
export const retryStep = (
  answer: RetryAnswer,
  attempt: number,
  batchEvents: number,
  options: RetryOptions,
  random: () => number,
  now: number,
): RetryStep => {
  const backoff = (): RetryStep => ({
    retryInMs: backoffDelay(attempt, options.retryInitialDelayMs, options.retryMaxDelayMs, random),
  });
  if ('network' in answer) return backoff();
  const { status } = answer;
  if (status >= 200 && status < 300) return { settle: 'sent' };
  // A 400 that names no item is about the batch as a whole: more events than this deployment
  // takes at once, or a body it cannot read. Halving it fits the smaller limit, or isolates the
  // one event at fault instead of losing its neighbours.
  if (status === 400) return !namesAnItem(answer.body) && batchEvents > 1 ? { split: true } : { settle: 'rejected' };
  if (status === 413) return batchEvents > 1 ? { split: true } : { settle: 'failed' };
  if (status === 408 || status === 429 || (status >= 500 && status < 600)) {
    const after = parseRetryAfter(answer.retryAfter, now);
    return after !== undefined && after > 0 ? { retryInMs: after } : backoff();
  }
  return { settle: 'failed' };
};
