import test from 'ava';
import { Admission } from '../../src/http/admission.ts';
import { parseExposition } from '../helpers/prometheus.ts';
import { RawConnection, rawRequest } from '../helpers/raw-http.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('Admission: at most `limit` at once, the others in arrival order; a failure passes the turn on', async (t) => {
  const gate = new Admission(2);
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const work = (name: string, fail = false) =>
    gate.run(async () => {
      started.push(name);
      await new Promise<void>((resolve) => releases.set(name, resolve));
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
  const a = work('a', true);
  const b = work('b');
  const c = work('c');
  const d = work('d');
  await tick();
  t.deepEqual(started, ['a', 'b']);
  t.is(gate.queued, 2);
  releases.get('a')!();
  await t.throwsAsync(a, { message: 'a failed' });
  await tick();
  t.deepEqual(started, ['a', 'b', 'c'], "the failed one's turn went to the first in line");
  // A newcomer while c and d wait for b's slot does not overtake d.
  const e = work('e');
  releases.get('b')!();
  t.is(await b, 'b');
  await tick();
  t.deepEqual(started, ['a', 'b', 'c', 'd']);
  releases.get('c')!();
  releases.get('d')!();
  t.deepEqual(await Promise.all([c, d]), ['c', 'd']);
  await tick();
  releases.get('e')!();
  t.is(await e, 'e');
  t.is(gate.queued, 0);
  t.throws(() => new Admission(0), { instanceOf: RangeError });
});

/** A batch POST on a raw connection whose body is sent in two parts: the first now, the rest
 *  when `finish` is called. */
const slowBatch = async (url: string, apiKey: string, body: string) => {
  const conn = await RawConnection.open(Number(new URL(url).port));
  const half = Math.floor(body.length / 2);
  conn.write(
    rawRequest(
      'POST',
      '/v1/audit/batch',
      { 'Content-Type': 'application/json', 'X-API-Key': apiKey, 'Content-Length': String(Buffer.byteLength(body)) },
      body.slice(0, half),
    ),
  );
  return { conn, finish: () => conn.write(body.slice(half)) };
};

const METRICS_TOKEN = 'metrics-token-0123456789';

test(
  'batches wait their turn unread, counted by a gauge; ' +
    'a client that left while waiting does not hold the next turn',
  async (t) => {
    const server = await startTestServer({
      env: {
        WATCHLOG_BATCH_CONCURRENCY: '1',
        WATCHLOG_BODY_TIMEOUT_MS: '30000',
        WATCHLOG_METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    const waitingNow = async () =>
      parseExposition(
        await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
      ).value('watchlog_ingest_batches_waiting');
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    const body = (requestId: string) => JSON.stringify([sampleEvent({ request_id: requestId })]);

    const first = await slowBatch(server.url, apiKey, body('first'));
    t.teardown(() => first.conn.destroy());
    await new Promise((r) => setTimeout(r, 200));
    const gone = await slowBatch(server.url, apiKey, body('gone'));
    const waitingAre = (n: number) => eventually(async () => ((await waitingNow()) === n ? true : undefined));
    await waitingAre(1);
    const waiting = api(server.url, 'POST', '/v1/audit/batch', {
      apiKey,
      body: [sampleEvent({ request_id: 'waiting' })],
    });
    let answered = false;
    void waiting.then(() => {
      answered = true;
    });
    await waitingAre(2);
    await new Promise((r) => setTimeout(r, 200));
    t.false(answered, 'a complete batch waits while another holds the only turn');
    gone.conn.destroy();
    await new Promise((r) => setTimeout(r, 100));

    const since = Date.now();
    first.finish();
    t.like(await first.conn.next(), { status: 202 });
    const res = await waiting;
    t.is(res.status, 202);
    t.is(res.body.accepted.length, 1);
    await waitingAre(0);
    // Had the abandoned batch held its turn, the waiting one would have waited for its body
    // timeout (30 s).
    t.true(Date.now() - since < 5000, `answered ${Date.now() - since} ms after the first batch finished`);
  },
);
