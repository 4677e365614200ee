import test from 'ava';
import { MAX_BODY_BYTES } from '../src/client.ts';
import { API, ENDPOINT, harness } from './helpers/client.ts';

test('a recorded call is a SPEC 2.1 browser event: path without query, method, status, time, ids', async (t) => {
  const h = harness();
  h.call();
  h.call('/api/cart', {
    method: 'delete',
    status: null,
    error: 'TypeError: Failed to fetch',
    requestId: 'x'.repeat(256),
  });
  await h.client.flush();
  t.is(h.posts.length, 1);
  const [ok, failed] = h.posts[0]!.events;
  t.like(ok, {
    path: '/orders/7',
    method: 'GET',
    status_code: 200,
    response_time: 25,
    identifier: 'anonymous-session-1',
    service_name: 'storefront',
    environment: 'staging',
    user_agent: 'TestBrowser/1.0',
    request_id: 'req-1',
    session_id: 'session-1',
    source: 'browser',
  });
  t.regex(ok!.idempotency_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.false('error_message' in ok!);
  t.like(failed, { path: '/api/cart', method: 'DELETE', error_message: 'TypeError: Failed to fetch' });
  t.false('status_code' in failed!, 'no status on a network error');
  t.false('request_id' in failed!, 'an id the server would refuse is left out, not cut');
  t.not(ok!.idempotency_key, failed!.idempotency_key);
  t.like(h.client.stats(), { recorded: 2, sent: 2 });
});

test(
  'identify() gives the identifier (cut to 100); ' + 'empty, wrong or throwing falls back to the anonymous id',
  async (t) => {
    const ids: unknown[] = ['user-42', 'u'.repeat(150), '', null, 7, new Error('boom')];
    const h = harness({
      identify: () => {
        const next = ids.shift();
        if (next instanceof Error) throw next;
        return next as string;
      },
    });
    for (let i = 0; i < 6; i += 1) h.call();
    await h.client.flush();
    t.deepEqual(
      h.posts[0]!.events.map((e) => e.identifier),
      ['user-42', 'u'.repeat(100), ...Array(4).fill('anonymous-session-1')],
    );
  },
);

test(
  'only calls to the backends are recorded; ' +
    'watchlog, other origins and methods SPEC does not take are not (the last counted)',
  (t) => {
    const h = harness({ backends: ['https://shop.example.com'], endpoint: 'https://shop.example.com/watchlog' });
    t.truthy(h.call('/orders'));
    t.is(h.call('https://shop.example.com/watchlog/v1/audit/batch'), undefined);
    t.is(h.call('https://cdn.example.com/app.js'), undefined);
    t.is(h.call('http://[bad'), undefined);
    for (const method of ['PATCH', 'HEAD', 'OPTIONS', 'patch']) t.is(h.call('/orders', { method }), undefined);
    t.like(h.client.stats(), { recorded: 1, skipped: 4 });
  },
);

test('a batch waits for the interval, then goes as one JSON POST with the key, keepalive, no cookies', async (t) => {
  const h = harness({ flushIntervalMs: 2000 });
  h.call();
  h.call();
  await h.settle();
  t.is(h.posts.length, 0);
  t.is(await h.fire(), 2000);
  t.is(h.posts.length, 1);
  const { url, init, events } = h.posts[0]!;
  t.is(url, `${ENDPOINT}/v1/audit/batch`);
  t.deepEqual(init.headers, { 'Content-Type': 'application/json', 'X-API-Key': 'key 1' });
  t.like(init, { method: 'POST', keepalive: true, credentials: 'omit' });
  t.is(events.length, 2);
  t.is(h.timers.size, 0, 'nothing left to send, nothing scheduled');
});

test('a full batch goes at once; batches stay within maxBatch and the keepalive body budget', async (t) => {
  const h = harness({ maxBatch: 3 });
  for (let i = 0; i < 3; i += 1) h.call();
  await h.settle();
  t.is(h.posts.length, 1, 'sent without waiting for the interval');
  for (let i = 0; i < 4; i += 1) h.call();
  await h.settle();
  await h.client.flush();
  t.deepEqual(
    h.posts.map((p) => p.events.length),
    [3, 3, 1],
  );

  const big = harness({ maxBatch: 1000 });
  for (let i = 0; i < 200; i += 1) big.call(`${API}/${'p'.repeat(250)}`, { error: 'e'.repeat(600) });
  await big.client.flush();
  t.true(big.posts.length > 1);
  for (const p of big.posts) t.true(Buffer.byteLength(String(p.init.body)) <= MAX_BODY_BYTES);
  t.is(
    big.posts.reduce((n, p) => n + p.events.length, 0),
    200,
  );
  t.is(big.posts[0]!.events[0]!.error_message!.length, 512, 'long texts are cut');
});

test('a full queue drops the oldest and counts them', async (t) => {
  const h = harness({ maxQueue: 3, maxBatch: 1000 });
  for (let i = 0; i < 5; i += 1) h.call(`${API}/n/${i}`);
  await h.client.flush();
  t.deepEqual(
    h.posts[0]!.events.map((e) => e.path),
    ['/n/2', '/n/3', '/n/4'],
  );
  t.like(h.client.stats(), { recorded: 5, dropped: 2, sent: 3 });
});

test(
  '429 and 503 are retried after Retry-After, ' + 'network errors with backoff, with the same idempotency keys',
  async (t) => {
    const h = harness();
    h.answers.push(
      new Response('', { status: 503, headers: { 'Retry-After': '7' } }),
      new TypeError('Failed to fetch'),
      new Response('', { status: 429, headers: { 'Retry-After': 'Sun, 01 Mar 2026 12:00:03 GMT' } }),
    );
    h.call();
    await h.client.flush();
    t.is(h.posts.length, 1);
    t.is(await h.fire(), 7000, 'Retry-After in seconds');
    t.is(await h.fire(), 1000, 'second retry: 2 s of backoff, fully jittered');
    t.is(await h.fire(), 3000, 'Retry-After as a date');
    t.is(h.posts.length, 4);
    t.is(new Set(h.posts.map((p) => p.events[0]!.idempotency_key)).size, 1);
    t.like(h.client.stats(), { sent: 1, retries: 3, failed: 0 });
  },
);

test('events recorded during a retry wait join the queue and follow the retried batch', async (t) => {
  const h = harness();
  h.answers.push(new Response('', { status: 503 }));
  h.call(`${API}/first`);
  await h.client.flush();
  h.call(`${API}/second`);
  await h.settle();
  t.is(h.timers.size, 1, 'only the retry is pending');
  t.is(await h.fire(), 500, 'first retry: 1 s of backoff, fully jittered');
  t.deepEqual(
    h.posts.map((p) => p.events.map((e) => e.path)),
    [['/first'], ['/first'], ['/second']],
  );
});

test('after maxRetries a batch is given up and counted; the next one goes', async (t) => {
  const h = harness({ maxRetries: 2 });
  h.answers.push(
    new Response('', { status: 500 }),
    new Response('', { status: 502 }),
    new Response('', { status: 504 }),
  );
  h.call();
  await h.client.flush();
  await h.fire();
  await h.fire();
  t.is(h.timers.size, 0);
  t.like(h.client.stats(), { failed: 1, retries: 2, sent: 0 });
  h.call();
  await h.client.flush();
  t.like(h.client.stats(), { failed: 1, sent: 1 });
});

test(
  'refusals are not retried: 401 and 403 fail the batch, ' + "400 and a 202's rejected list count as rejected",
  async (t) => {
    const h = harness();
    h.answers.push(
      new Response('', { status: 401 }),
      new Response('', { status: 403 }),
      Response.json({ error: 'validation_error' }, { status: 400 }),
      Response.json({ accepted: [{ index: 0, id: 'a' }], rejected: [{ index: 1, details: [] }] }, { status: 202 }),
      new Response('not json', { status: 202 }),
    );
    for (let i = 0; i < 5; i += 1) {
      h.call();
      if (i === 3) h.call();
      await h.client.flush();
    }
    t.is(h.posts.length, 5);
    t.is(h.timers.size, 0);
    t.like(h.client.stats(), { failed: 2, rejected: 2, sent: 2, retries: 0 });
  },
);

test(
  '413 (a batch larger than the key may send in a second): ' + 'halved until it passes, and kept that small',
  async (t) => {
    const h = harness({ maxBatch: 8 });
    h.answers.push(new Response('', { status: 413 }), new Response('', { status: 413 }));
    for (let i = 0; i < 8; i += 1) h.call(`${API}/n/${i}`);
    await h.client.flush();
    t.deepEqual(
      h.posts.map((p) => p.events.length),
      [8, 4, 2, 2, 2, 2],
    );
    t.deepEqual(
      h.posts.slice(2).flatMap((p) => p.events.map((e) => e.path)),
      Array.from({ length: 8 }, (_, i) => `/n/${i}`),
      'in order',
    );
    t.like(h.client.stats(), { sent: 8, failed: 0 });
    for (let i = 0; i < 3; i += 1) h.call();
    await h.settle();
    t.deepEqual(
      h.posts.slice(6).map((p) => p.events.length),
      [2, 1],
      'two queued is now a full batch',
    );
    h.answers.push(new Response('', { status: 413 }));
    h.call();
    await h.client.flush();
    t.like(h.client.stats(), { sent: 11, failed: 1 }, 'a single event refused as too large is given up');
  },
);

test('a 400 naming no event halves the batch; one naming an event rejects the batch', async (t) => {
  const h = harness({ maxBatch: 4 });
  const invalid = { error: { code: 'validation_failed', details: [{ path: '1.path', message: 'bad' }] } };
  h.answers.push(Response.json({ error: { code: 'too_many_events' } }, { status: 400 }));
  h.answers.push(Response.json(invalid, { status: 400 }));
  for (let i = 0; i < 4; i += 1) h.call(`${API}/n/${i}`);
  await h.client.flush();
  t.deepEqual(
    h.posts.map((p) => p.events.length),
    [4, 2, 2],
  );
  t.like(h.client.stats(), { rejected: 2, sent: 2, failed: 0, retries: 0 });
});

test(
  'page hide: what is queued, and a batch waiting for its retry, ' + 'leave by beacon with the key in the query',
  async (t) => {
    const h = harness();
    h.answers.push(new Response('', { status: 503, headers: { 'Retry-After': '60' } }));
    h.call(`${API}/waiting`);
    await h.client.flush();
    h.call(`${API}/queued`);
    h.client.hide();
    t.is(h.beacons.length, 1);
    t.is(h.beacons[0]!.url, `${ENDPOINT}/v1/audit/batch?api_key=key%201`);
    t.deepEqual(
      h.beacons[0]!.events.map((e) => e.path),
      ['/waiting', '/queued'],
    );
    t.is(
      h.beacons[0]!.events[0]!.idempotency_key,
      h.posts[0]!.events[0]!.idempotency_key,
      'same key: no duplicate if the first try did arrive',
    );
    t.is(h.timers.size, 0, 'the retry is off');
    t.like(h.client.stats(), { beaconed: 2 });
    h.client.hide();
    t.is(h.beacons.length, 1, 'nothing left');
  },
);

test(
  'page hide leaves a batch in flight alone ' + '(it is a keepalive request) and cuts beacons to the body budget',
  async (t) => {
    let release: (r: Response) => void = () => undefined;
    const h = harness({ maxBatch: 1000 });
    h.answers.push(
      new Promise<Response>((resolve) => {
        release = resolve;
      }),
    );
    h.call(`${API}/in-flight`);
    const flushed = h.client.flush();
    await h.settle();
    t.is(h.posts.length, 1);
    for (let i = 0; i < 150; i += 1) h.call(`${API}/${'p'.repeat(250)}/${i}`);
    h.client.hide();
    const beaconed = h.beacons.flatMap((b) => b.events.map((e) => e.path));
    t.is(beaconed.length, 150);
    t.false(beaconed.includes('/in-flight'));
    t.deepEqual(
      beaconed.map((p) => p.split('/')[2]),
      Array.from({ length: 150 }, (_, i) => String(i)),
      'in order',
    );
    t.true(h.beacons.length > 1);
    for (const b of h.beacons) t.true(b.bytes <= MAX_BODY_BYTES);
    release(Response.json({ accepted: [{ index: 0, id: 'x' }], rejected: [] }, { status: 202 }));
    await flushed;
    t.like(h.client.stats(), { sent: 1, beaconed: 150, recorded: 151 });
  },
);

test(
  'page hide: what the browser will not take stays queued, ' +
    'in order, and goes on the interval if the page lives on',
  async (t) => {
    let takes = 1;
    const h = harness({ maxBatch: 1000 }, { beaconTakes: () => takes-- > 0 });
    for (let i = 0; i < 150; i += 1) h.call(`${API}/${'p'.repeat(250)}/${i}`);
    await h.settle();
    h.client.hide();
    t.is(h.beacons.length, 1);
    const first = h.beacons[0]!.events.length;
    t.true(first < 150);
    t.is(h.timers.size, 1);
    await h.fire();
    const posted = h.posts.flatMap((p) => p.events.map((e) => Number(e.path.split('/')[2])));
    t.deepEqual(
      posted,
      Array.from({ length: 150 - first }, (_, i) => first + i),
    );
    t.like(h.client.stats(), { beaconed: first, sent: 150 - first, dropped: 0 });
  },
);

test(
  'stop: nothing more is recorded; what is queued, ' + 'and a batch waiting for its retry, get one attempt each',
  async (t) => {
    const h = harness();
    h.answers.push(new Response('', { status: 503 }), new Response('', { status: 503 }));
    h.call(`${API}/a`);
    await h.client.flush();
    t.is(h.timers.size, 1, 'a retry is waiting');
    h.call(`${API}/b`);
    const started = h.client.begin('GET', `${API}/c`);
    await h.client.stop();
    h.client.end(started!, 'r', 200, undefined);
    t.is(h.call(), undefined);
    t.deepEqual(
      h.posts.map((p) => p.events.map((e) => e.path)),
      [['/a'], ['/a'], ['/b']],
    );
    t.is(h.timers.size, 0);
    t.like(h.client.stats(), { recorded: 2, failed: 1, sent: 1, retries: 1 });
  },
);
