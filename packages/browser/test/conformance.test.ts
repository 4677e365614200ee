import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { retryStep, type RetryAnswer, type RetryStep } from '../src/retry.ts';

/** packages/conformance/retry.json: the retry schedule every SDK shares. The browser SDK does not
 *  mask and records fetch calls, not server requests, so masking.json and events.json are not
 *  its; its maxRetries, and page-hide beacons (sent once, unanswered), lie outside the schedule. */

type VectorAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | { network: string };
type VectorStep = { retry_in_ms: number } | { split: true } | { settle: 'sent' | 'rejected' | 'failed' };

interface RetryFile {
  cases: {
    name: string;
    options: { retry_initial_delay_ms: number; retry_max_delay_ms: number };
    random: number;
    now: string;
    batch_events: number;
    answers: VectorAnswer[];
    steps: VectorStep[];
  }[];
}

const vectors = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../conformance/retry.json', import.meta.url)), 'utf8'),
) as RetryFile;

const asVector = (step: RetryStep): VectorStep => ('retryInMs' in step ? { retry_in_ms: step.retryInMs } : step);

for (const c of vectors.cases) {
  test(`retry.json: ${c.name}`, (t) => {
    const delays = { initialMs: c.options.retry_initial_delay_ms, maxMs: c.options.retry_max_delay_ms };
    const now = Date.parse(c.now);
    const steps = c.answers.map((a, attempt) => {
      const answer: RetryAnswer =
        'network' in a
          ? { network: a.network }
          : { status: a.status, retryAfter: a.headers?.['retry-after'], body: a.body };
      return asVector(retryStep(answer, attempt, c.batch_events, delays, () => c.random, now));
    });
    t.deepEqual(steps, c.steps);
  });
}
