import test from 'ava';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { flush, init, stats, stop } from '../src/index.ts';

// init() patches globalThis.fetch: these tests run one at a time.

interface Seen {
  method: string;
  path: string;
  requestId: string | undefined;
  body: string;
  page: string | undefined;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

const listen = async (
  t: { teardown(fn: () => unknown): void },
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
) => {
  const server = createServer((req, res) => {
    void handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** A backend that says what it received, a bystander on another origin, and a watchlog that
 *  accepts every batch. */
const world = async (t: { teardown(fn: () => unknown): void }) => {
  const seen: Seen[] = [];
  const record = async (req: IncomingMessage) => {
    const header = req.headers['x-request-id'];
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      requestId: typeof header === 'string' ? header : undefined,
      body: await readBody(req),
      page: req.headers['x-page'] as string | undefined,
    });
  };
  const backend = await listen(t, async (req, res) => {
    await record(req);
    res.writeHead(201, { 'content-type': 'application/json', 'x-custom': 'kept' });
    res.end(JSON.stringify({ created: req.url }));
  });
  const bystander = await listen(t, async (req, res) => {
    await record(req);
    res.end('bystander');
  });
  const batches: Array<{ key: string | undefined; type: string | undefined; events: Array<Record<string, unknown>> }> =
    [];
  const watchlog = await listen(t, async (req, res) => {
    const events = JSON.parse(await readBody(req)) as Array<Record<string, unknown>>;
    batches.push({ key: req.headers['x-api-key'] as string | undefined, type: req.headers['content-type'], events });
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ accepted: events.map((_, index) => ({ index, id: String(index) })), rejected: [] }));
  });
  return { seen, batches, backend, bystander, watchlog };
};

const settled = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

test.serial(
  'in Node (no window): calls to the backend get X-Request-ID and are recorded; ' +
    'answers and errors are the original ones',
  async (t) => {
    const w = await world(t);
    const original = globalThis.fetch;
    const down = 'http://127.0.0.1:1';
    init({
      endpoint: w.watchlog,
      apiKey: 'public-key',
      serviceName: 'web',
      environment: 'development',
      backends: [w.backend, `${down}/api`],
      flushIntervalMs: 60_000,
    });
    t.teardown(() => stop());
    t.not(globalThis.fetch, original);
    t.is(globalThis.fetch.length, original.length);

    const created = await fetch(`${w.backend}/orders?coupon=x`, {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain', 'x-page': 'p1' },
    });
    t.is(created.status, 201);
    t.is(created.headers.get('x-custom'), 'kept');
    t.deepEqual(await created.json(), { created: '/orders?coupon=x' });
    t.like(w.seen[0], { method: 'POST', path: '/orders?coupon=x', body: 'hello', page: 'p1' });
    t.regex(w.seen[0]!.requestId ?? '', /^[0-9a-f-]{36}$/);

    // A Request object, with the page's own X-Request-ID: sent as it is, and that is the request_id.
    const request = new Request(`${w.backend}/items/3`, {
      method: 'PUT',
      headers: { 'X-Request-ID': 'page-chosen-id' },
      body: 'b',
    });
    t.is((await fetch(request)).status, 201);
    t.like(w.seen[1], { method: 'PUT', requestId: 'page-chosen-id', body: 'b' });

    // Another origin, and a method SPEC does not take: untouched.
    t.is(await (await fetch(`${w.bystander}/x`)).text(), 'bystander');
    t.is(w.seen[2]!.requestId, undefined);
    await fetch(`${w.backend}/items/3`, { method: 'PATCH', body: 'p' });
    t.like(w.seen[3], { method: 'PATCH', requestId: undefined, body: 'p' });

    // A backend that is down: the page gets the very error fetch gives without the SDK.
    const withSdk = await settled(fetch(`${down}/api/ping`));
    const without = await settled(original(`${down}/api/ping`));
    t.true('error' in withSdk && 'error' in without);
    const [a, b] = [withSdk, without].map((s) => (s as { error: Error & { cause?: { code?: string } } }).error);
    t.is(a!.constructor, b!.constructor);
    t.is(a!.message, b!.message);
    t.is(a!.cause?.code, b!.cause?.code);

    // Arguments fetch refuses (a GET with a body) are refused the same way, as a rejection.
    const refused = fetch(`${w.backend}/x`, { method: 'GET', body: 'no' });
    t.true(refused instanceof Promise);
    const [r1, r2] = [await settled(refused), await settled(original(`${w.backend}/x`, { method: 'GET', body: 'no' }))];
    t.is((r1 as { error: Error }).error.message, (r2 as { error: Error }).error.message);

    await flush();
    t.is(w.batches.length, 1);
    t.like(w.batches[0], { key: 'public-key', type: 'application/json' });
    const events = w.batches[0]!.events;
    t.deepEqual(
      events.map((e) => [e.method, e.path, e.status_code, e.request_id]),
      [
        ['POST', '/orders', 201, w.seen[0]!.requestId],
        ['PUT', '/items/3', 201, 'page-chosen-id'],
        ['GET', '/api/ping', undefined, events[2]!.request_id],
      ],
    );
    t.regex(String(events[2]!.error_message), /^TypeError: fetch failed/);
    for (const e of events) t.like(e, { source: 'browser', service_name: 'web', environment: 'development' });
    t.like(stats(), { recorded: 3, sent: 3, skipped: 1 });

    await stop();
    t.is(globalThis.fetch, original, 'stop() restores the original fetch');
    t.is(stats(), undefined);
  },
);

test.serial('init() refuses bad options without touching fetch, and a second init() before stop()', async (t) => {
  const w = await world(t);
  const original = globalThis.fetch;
  t.throws(() => init({ endpoint: 'nope', apiKey: '', serviceName: 's', environment: 'production', backends: [] }), {
    instanceOf: TypeError,
    message: /endpoint must be .*; apiKey must be .*; backends must be/,
  });
  t.is(globalThis.fetch, original);
  const first = init({
    endpoint: w.watchlog,
    apiKey: 'k',
    serviceName: 's',
    environment: 'production',
    backends: [w.backend],
  });
  t.teardown(() => first.stop());
  t.throws(
    () =>
      init({ endpoint: w.watchlog, apiKey: 'k', serviceName: 's', environment: 'production', backends: [w.backend] }),
    { message: /already called/ },
  );
  await first.stop();
  const again = init({
    endpoint: w.watchlog,
    apiKey: 'k',
    serviceName: 's',
    environment: 'production',
    backends: [w.backend],
  });
  await again.stop();
  t.is(globalThis.fetch, original);
});

test.serial(
  'a fetch wrapper installed after ours survives stop(); ours then passes calls through untouched',
  async (t) => {
    const w = await world(t);
    const original = globalThis.fetch;
    const sdk = init({
      endpoint: w.watchlog,
      apiKey: 'k',
      serviceName: 's',
      environment: 'production',
      backends: [w.backend],
    });
    const ours = globalThis.fetch;
    const theirs: typeof fetch = (input, init2) => ours(input, init2);
    globalThis.fetch = theirs;
    t.teardown(() => {
      globalThis.fetch = original;
    });
    await sdk.stop();
    t.is(globalThis.fetch, theirs);
    await fetch(`${w.backend}/after-stop`);
    t.is(w.seen[0]!.requestId, undefined);
    t.is(sdk.stats().recorded, 0);
  },
);
