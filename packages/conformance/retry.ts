import { readFileSync } from 'node:fs';

/** retry.json as the JavaScript SDKs' tests read it (packages/node and packages/browser): its
 *  cases, and the steps an SDK's `retryStep` takes through a case's answers, written as the file
 *  writes them. */

type VectorAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | { network: string };
export type VectorStep = { retry_in_ms: number } | { split: true } | { settle: 'sent' | 'rejected' | 'failed' };

export interface RetryCase {
  name: string;
  options: { retry_initial_delay_ms: number; retry_max_delay_ms: number };
  random: number;
  now: string;
  batch_events: number;
  answers: VectorAnswer[];
  steps: VectorStep[];
}

/** An answer as the SDKs' `retryStep` takes it, and what it answers. */
export type StepAnswer =
  | { readonly status: number; readonly retryAfter: string | undefined; readonly body: unknown }
  | { readonly network: string };
export type Step =
  | { readonly settle: 'sent' | 'rejected' | 'failed' }
  | { readonly split: true }
  | { readonly retryInMs: number };

export const retryCases = (): RetryCase[] =>
  (JSON.parse(readFileSync(new URL('./retry.json', import.meta.url), 'utf8')) as { cases: RetryCase[] }).cases;

/** `step(answer, attempt, now)` for each of the case's answers in turn: `now` is the case's clock. */
export const stepsOf = (
  c: RetryCase,
  step: (answer: StepAnswer, attempt: number, now: number) => Step,
): VectorStep[] => {
  const now = Date.parse(c.now);
  return c.answers.map((a, attempt) => {
    const answer: StepAnswer =
      'network' in a
        ? { network: a.network }
        : { status: a.status, retryAfter: a.headers?.['retry-after'], body: a.body };
    const taken = step(answer, attempt, now);
    return 'retryInMs' in taken ? { retry_in_ms: taken.retryInMs } : taken;
  });
};
