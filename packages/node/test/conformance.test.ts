import test from 'ava';
import { maskValue } from '@watchlog/masking';
import { captureObject } from '../src/capture.ts';
import { retryCases, stepsOf } from '../../conformance/retry.ts';
import { retryStep } from '../src/retry.ts';
import { readVectors, recordCase, type EventsFile } from './helpers/vectors.ts';

interface MaskingFile {
  mask: string;
  cases: { name: string; input: unknown; output: unknown }[];
}

const masking = readVectors<MaskingFile>('masking.json');
const events = readVectors<EventsFile>('events.json');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

for (const c of masking.cases) {
  test(`masking: ${c.name}`, (t) => {
    t.deepEqual(maskValue(c.input), c.output);
    // What the SDK sends of a body goes through the same rules.
    if (isPlainObject(c.input)) t.deepEqual(captureObject(c.input, 1024 * 1024, { bytes: 0 }), c.output);
  });
}

const PRINTABLE_ID = /^[\x21-\x7e]{1,255}$/;

for (const c of events.cases) {
  test(`events: ${c.name}`, (t) => {
    const { event, header } = recordCase(c, events.defaults.options);
    t.is(header !== undefined, c.sets_request_id_header, 'X-Request-ID set on the response');
    if (c.event === null || event === null) {
      t.is(event, c.event);
      return;
    }
    const expected = { ...c.event };
    const key = event.idempotency_key;
    t.true(typeof key === 'string' && key.length > 0, 'idempotency_key');
    expected.idempotency_key = key;
    const time = event.response_time;
    t.true(typeof time === 'number' && Number.isInteger(time) && time >= 0, 'response_time');
    expected.response_time = time;
    if (expected.request_id === '<generated>') {
      t.regex(String(event.request_id), PRINTABLE_ID);
      expected.request_id = event.request_id;
    }
    if (header !== undefined) t.is(event.request_id, header);
    t.deepEqual(event, expected);
  });
}

for (const c of retryCases()) {
  test(`retry: ${c.name}`, (t) => {
    const options = {
      retryInitialDelayMs: c.options.retry_initial_delay_ms,
      retryMaxDelayMs: c.options.retry_max_delay_ms,
    };
    const steps = stepsOf(c, (answer, attempt, now) =>
      retryStep(answer, attempt, c.batch_events, options, () => c.random, now),
    );
    t.deepEqual(steps, c.steps);
  });
}
