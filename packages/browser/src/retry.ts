import { backoffMs, retryAfterMs } from './backoff.ts';

/** One attempt's answer as the retry decision reads it: a status with its Retry-After and its
 *  parsed body (only an error's `details` are read), or no answer at all. */
export type RetryAnswer =
  | { readonly status: number; readonly retryAfter: string | undefined; readonly body: unknown }
  | { readonly network: string };

export type RetryStep =
  | { readonly settle: 'sent' | 'rejected' | 'failed' }
  | { readonly split: true }
  | { readonly retryInMs: number };

export interface RetryDelays {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** Whether a 400 names an item of the batch (a detail whose path starts with its index). */
const namesAnItem = (body: unknown): boolean => {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  return (
    Array.isArray(details) &&
    details.some((d) => {
      const path = (d as { path?: unknown } | null)?.path;
      return typeof path === 'string' && /^\d/.test(path);
    })
  );
};

/** What the answer to attempt `attempt` (0 for the first) of a batch of `batchEvents` events
 *  leads to, as packages/conformance/README.md states it for every SDK. `random` is drawn only
 *  for a backoff. */
export const retryStep = (
  answer: RetryAnswer,
  attempt: number,
  batchEvents: number,
  delays: RetryDelays,
  random: () => number,
  now: number,
): RetryStep => {
  if ('network' in answer) return { retryInMs: backoffMs(attempt, random(), delays.initialMs, delays.maxMs) };
  const { status } = answer;
  if (status >= 200 && status < 300) return { settle: 'sent' };
  // A 400 naming no event is about the batch as a whole (more events than the server takes at
  // once, say): halves pass, or isolate the event at fault.
  if (status === 400) return !namesAnItem(answer.body) && batchEvents > 1 ? { split: true } : { settle: 'rejected' };
  if (status === 413) return batchEvents > 1 ? { split: true } : { settle: 'failed' };
  if (status === 408 || status === 429 || (status >= 500 && status < 600)) {
    const after = retryAfterMs(answer.retryAfter, now);
    return {
      retryInMs:
        after !== undefined && after > 0 ? after : backoffMs(attempt, random(), delays.initialMs, delays.maxMs),
    };
  }
  return { settle: 'failed' };
};
