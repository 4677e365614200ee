import test from 'ava';
import { createWatchlog, type WatchlogDeliveryError } from '../src/index.ts';
import { startReceiver } from './helpers/receiver.ts';
import { balanced, captureLogger, closedPort, sleep, testOptions, until, withReceiver } from './helpers/setup.ts';

const event = (i: number, extra: Record<string, unknown> = {}) => ({
  path: `/e/${i}`,
  method: 'POST',
  status_code: 200,
  ...extra,
});

test('a batch leaves as soon as batchMaxEvents are queued; the rest waits for the timer or flush()', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { batchMaxEvents: 5, flushIntervalMs: 60_000 });
  for (let i = 0; i < 12; i++) watchlog.record(event(i));
  await receiver.waitForStored(10);
  await sleep(50);
  t.deepEqual(
    receiver.requests.map((r) => r.events.length),
    [5, 5],
  );
  t.true(await watchlog.flush());
  t.deepEqual(
    receiver.requests.map((r) => r.events.length),
    [5, 5, 2],
  );
  t.deepEqual(
    receiver.stored.map((e) => e.path),
    Array.from({ length: 12 }, (_, i) => `/e/${i}`),
  );
  t.like(watchlog.stats(), { queued: 12, sent: 12, pending: 0 });
  t.true(balanced(watchlog.stats()));
});

test('a batch leaves as soon as batchMaxBytes are queued, and none is larger', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, {
    batchMaxBytes: 16 * 1024,
    flushIntervalMs: 60_000,
    captureBodies: true,
  });
  const filler = 'y'.repeat(3000);
  for (let i = 0; i < 11; i++) watchlog.record(event(i, { request_body: { filler } }));
  await receiver.waitForStored(10);
  t.true(receiver.requests.every((r) => r.bytes <= 16 * 1024));
  t.true(receiver.requests.length >= 2);
  await watchlog.flush();
  t.is(receiver.stored.length, 11);
});

test('without a flush, queued events leave after flushIntervalMs, together', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { flushIntervalMs: 150 });
  const start = Date.now();
  for (let i = 0; i < 3; i++) watchlog.record(event(i));
  await receiver.waitForStored(3);
  t.true(receiver.requests[0]!.at - start >= 140, 'not before the interval');
  t.deepEqual(
    receiver.requests.map((r) => r.events.length),
    [3],
  );
});

test('every event carries an idempotency key; retries after resets resend the same keys and store once', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  receiver.script({ kind: 'reset' }, { kind: 'reset' });
  for (let i = 0; i < 4; i++) watchlog.record(event(i));
  await receiver.waitForStored(4);
  t.is(receiver.requests.length, 3);
  const keys = receiver.requests.map((r) => r.events.map((e) => e.idempotency_key).join());
  t.is(new Set(keys).size, 1, 'same keys on every attempt');
  t.is(new Set(receiver.requests[0]!.events.map((e) => e.idempotency_key)).size, 4, 'one key per event');
  t.is(receiver.requests[0]!.headers['x-api-key'], 'wl_test_key');
  t.is(receiver.requests[0]!.path, '/v1/audit/batch');
  t.true(await watchlog.flush());
  t.like(watchlog.stats(), { sent: 4, retries: 2, failures: 0 });
});

test(
  'an answer lost after the events were stored: ' + 'the retry is answered replayed, nothing is stored twice',
  async (t) => {
    const { receiver, watchlog } = await withReceiver(t);
    receiver.script({ kind: 'store-then-reset' });
    for (let i = 0; i < 3; i++) watchlog.record(event(i));
    await receiver.waitForStored(3);
    t.true(await watchlog.flush());
    t.is(receiver.requests.length, 2);
    t.is(receiver.stored.length, 3);
    t.like(watchlog.stats(), { sent: 0, replayed: 3, retries: 1 });
    t.true(balanced(watchlog.stats()));
  },
);

test('Retry-After of a 429 and of a 503 is waited out, though the backoff alone would retry sooner', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  receiver.script(
    { kind: 'status', status: 429, retryAfter: '1' },
    {
      kind: 'status',
      status: 503,
      retryAfter: '1',
      body: { error: { code: 'outcome_unknown', message: 'x', details: [] } },
    },
  );
  watchlog.record(event(1));
  await receiver.waitForStored(1, 5000);
  const [first, second, third] = receiver.requests;
  t.true(second!.at - first!.at >= 950, `429 retried after ${second!.at - first!.at} ms`);
  t.true(third!.at - second!.at >= 950, `503 retried after ${third!.at - second!.at} ms`);
  t.true(await watchlog.flush());
  t.like(watchlog.stats(), { sent: 1, retries: 2 });
});

test('a 413 splits the batch in halves until each fits, keeping the keys', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { flushIntervalMs: 60_000, captureBodies: true });
  receiver.setDefault({ kind: 'limit', maxBytes: 3000 });
  for (let i = 0; i < 8; i++) watchlog.record(event(i, { request_body: { pad: 'z'.repeat(1000) } }));
  t.true(await watchlog.flush());
  t.is(receiver.stored.length, 8);
  t.deepEqual(
    receiver.requests.map((r) => r.events.length),
    [8, 4, 2, 2, 4, 2, 2],
  );
  t.is(new Set(receiver.stored.map((e) => e.idempotency_key)).size, 8);
  t.like(watchlog.stats(), { sent: 8, failures: 0, retries: 0 });
});

test('a 400 about the batch as a whole (more events than the deployment takes) splits it too', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { flushIntervalMs: 60_000 });
  const tooMany = {
    kind: 'status',
    status: 400,
    body: {
      error: {
        code: 'validation_error',
        message: 'batch is invalid',
        details: [{ path: 'body', message: 'must hold at most 4 events (it holds 8)' }],
      },
    },
  } as const;
  receiver.script(tooMany);
  for (let i = 0; i < 8; i++) watchlog.record(event(i));
  t.true(await watchlog.flush());
  t.deepEqual(
    receiver.requests.map((r) => r.events.length),
    [8, 4, 4],
  );
  t.like(watchlog.stats(), { sent: 8, rejected: 0 });
});

test('a single event over the size limit is given up and said once', async (t) => {
  const { receiver, watchlog, lines } = await withReceiver(t, { flushIntervalMs: 60_000, captureBodies: true });
  receiver.setDefault({ kind: 'limit', maxBytes: 500 });
  watchlog.record(event(1, { request_body: { pad: 'z'.repeat(1000) } }));
  t.true(await watchlog.flush());
  t.like(watchlog.stats(), { failures: 1, sent: 0 });
  t.is(lines.error.length, 1);
  t.regex(lines.error[0]!, /413/);
});

test('401 is not retried: the events count as failures and it is reported once, loudly', async (t) => {
  const errors: WatchlogDeliveryError[] = [];
  const { receiver, watchlog, lines } = await withReceiver(t, { batchMaxEvents: 2, onError: (e) => errors.push(e) });
  receiver.setDefault({
    kind: 'status',
    status: 401,
    body: { error: { code: 'unauthorized', message: 'unknown API key', details: [] } },
  });
  for (let i = 0; i < 6; i++) watchlog.record(event(i));
  t.true(await watchlog.flush());
  t.is(receiver.requests.length, 3, 'one attempt per batch');
  t.like(watchlog.stats(), { failures: 6, retries: 0, sent: 0 });
  t.is(lines.error.length, 1);
  t.regex(lines.error[0]!, /401.*unknown API key.*apiKey/);
  t.deepEqual(
    errors.map((e) => [e.problem, e.status]),
    [['unauthorized', 401]],
  );
});

test('403 is not retried either', async (t) => {
  const { receiver, watchlog, lines } = await withReceiver(t);
  receiver.setDefault({ kind: 'status', status: 403 });
  watchlog.record(event(1));
  t.true(await watchlog.flush());
  t.is(receiver.requests.length, 1);
  t.like(watchlog.stats(), { failures: 1 });
  t.regex(lines.error[0]!, /403/);
});

test('a 400 validation_error counts the events as rejected, without retrying; a 202 can refuse some', async (t) => {
  const { receiver, watchlog, lines } = await withReceiver(t, { flushIntervalMs: 60_000 });
  receiver.script({
    kind: 'status',
    status: 400,
    body: {
      error: {
        code: 'validation_error',
        message: 'no valid event',
        details: [{ path: '0.path', message: 'too long' }],
      },
    },
  });
  watchlog.record(event(1));
  watchlog.record(event(2));
  t.true(await watchlog.flush());
  t.is(receiver.requests.length, 1);
  t.like(watchlog.stats(), { rejected: 2, retries: 0 });
  t.regex(lines.warn[0]!, /rejected 2 events.*0\.path: too long/);
  receiver.script({
    kind: 'status',
    status: 202,
    body: {
      accepted: [{ index: 0, id: 'a' }],
      rejected: [{ index: 1, details: [{ path: '1.method', message: 'bad' }] }],
    },
  });
  watchlog.record(event(3));
  watchlog.record(event(4));
  t.true(await watchlog.flush());
  t.like(watchlog.stats(), { rejected: 3, sent: 1 });
  t.true(balanced(watchlog.stats()));
});

test('a 5xx and a server that never answers are retried with backoff until they succeed', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { requestTimeoutMs: 200 });
  receiver.script({ kind: 'status', status: 500 }, { kind: 'hang' }, { kind: 'status', status: 502 });
  watchlog.record(event(1));
  await receiver.waitForStored(1, 5000);
  t.true(await watchlog.flush());
  t.is(receiver.requests.length, 4);
  t.like(watchlog.stats(), { sent: 1, retries: 3 });
});

test('while unreachable, a full queue drops the oldest with one warning; one line when it recovers', async (t) => {
  const port = await closedPort();
  const { logger, lines } = captureLogger();
  const errors: WatchlogDeliveryError[] = [];
  const watchlog = createWatchlog(
    testOptions(`http://127.0.0.1:${port}`, {
      logger,
      onError: (e) => errors.push(e),
      maxQueueEvents: 10,
      batchMaxEvents: 10,
      concurrency: 1,
      flushIntervalMs: 60_000,
      retryMaxDelayMs: 20,
    }),
  );
  // The first 10 fill a batch that cannot leave; the next 25 overflow the queue behind it.
  for (let i = 0; i < 10; i++) watchlog.record(event(i));
  await until(() => watchlog.stats().retries > 0);
  for (let i = 10; i < 35; i++) watchlog.record(event(i));
  t.like(watchlog.stats(), { queued: 35, dropped: 15, pending: 20 });
  t.is(lines.warn.filter((l) => /queue full/.test(l)).length, 1, 'one warning, not one per drop');
  t.is(lines.warn.filter((l) => /cannot deliver/.test(l)).length, 1);
  t.deepEqual(
    errors.map((e) => e.problem),
    ['unreachable', 'dropping'],
  );
  const receiver = await startReceiver(port);
  t.teardown(() => receiver.close());
  t.true(await watchlog.flush({ timeoutMs: 5000 }));
  // The batch in flight (0–9) and the newest 10 (25–34) arrive; 10–24 were dropped.
  t.deepEqual(
    receiver.stored.map((e) => Number(e.path.slice(3))).sort((a, b) => a - b),
    [...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 25 + i)],
  );
  t.is(lines.info.length, 1);
  t.regex(lines.info[0]!, /again after .* s; 15 events dropped meanwhile/);
  const stats = await watchlog.close();
  t.like(stats, { sent: 20, dropped: 15, pending: 0 });
  t.true(balanced(stats));
});

test('flush() gives up at its deadline; close() drops what is left at its own and resolves', async (t) => {
  const port = await closedPort();
  const { logger } = captureLogger();
  const watchlog = createWatchlog(testOptions(`http://127.0.0.1:${port}`, { logger }));
  for (let i = 0; i < 5; i++) watchlog.record(event(i));
  t.false(await watchlog.flush({ timeoutMs: 100 }));
  t.is(watchlog.stats().pending, 5);
  const started = Date.now();
  const stats = await watchlog.close({ timeoutMs: 200 });
  t.true(Date.now() - started < 1500);
  t.like(stats, { dropped: 5, pending: 0, sent: 0 });
  t.true(stats.retries > 0);
  t.true(balanced(stats));
});

test('close() sends what is queued at once, and events recorded after it are dropped and said', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { logger, lines } = captureLogger();
  const watchlog = createWatchlog(testOptions(receiver.url, { logger, flushIntervalMs: 60_000 }));
  for (let i = 0; i < 7; i++) watchlog.record(event(i));
  const stats = await watchlog.close();
  t.is(receiver.stored.length, 7);
  t.like(stats, { sent: 7, pending: 0 });
  t.is(await watchlog.close(), await watchlog.close(), 'idempotent');
  watchlog.record(event(8));
  t.like(watchlog.stats(), { dropped: 1, queued: 8 });
  t.regex(lines.warn[0]!, /after close/);
});

test('close() retries at once what was waiting for a backoff', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { retryInitialDelayMs: 20_000, retryMaxDelayMs: 30_000 });
  receiver.script({ kind: 'status', status: 500 });
  watchlog.record(event(1));
  await until(() => receiver.requests.length === 1);
  await sleep(20);
  const started = Date.now();
  // Full jitter may have drawn a short delay; either way close() must not wait for a long one.
  const stats = await watchlog.close({ timeoutMs: 3000 });
  t.true(Date.now() - started < 1000);
  t.like(stats, { sent: 1, dropped: 0 });
});
