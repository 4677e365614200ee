import test from 'ava';
import { retryCases, stepsOf } from '../../conformance/retry.ts';
import { retryStep } from '../src/retry.ts';

/** packages/conformance/retry.json: the retry schedule every SDK shares. The browser SDK does not
 *  mask and records fetch calls, not server requests, so masking.json and events.json are not
 *  its; its maxRetries, and page-hide beacons (sent once, unanswered), lie outside the schedule. */

for (const c of retryCases()) {
  test(`retry.json: ${c.name}`, (t) => {
    const delays = { initialMs: c.options.retry_initial_delay_ms, maxMs: c.options.retry_max_delay_ms };
    const steps = stepsOf(c, (answer, attempt, now) =>
      retryStep(answer, attempt, c.batch_events, delays, () => c.random, now),
    );
    t.deepEqual(steps, c.steps);
  });
}
