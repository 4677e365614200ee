import test from 'ava';
import { api, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { RawConnection, rawRequest, type RawClosed, type RawResponse } from '../helpers/raw-http.ts';

/** The HTTP server's timeouts and connection limit (WATCHLOG_HEADERS_TIMEOUT_MS,
 *  WATCHLOG_REQUEST_TIMEOUT_MS, WATCHLOG_BODY_TIMEOUT_MS, WATCHLOG_KEEP_ALIVE_TIMEOUT_MS,
 *  WATCHLOG_MAX_CONNECTIONS), seen from raw sockets against the real app. */

const portOf = (url: string) => Number(new URL(url).port);

/** The next response or close, or 'pending' when nothing came within `ms`. */
const within = (conn: RawConnection, ms: number): Promise<RawResponse | RawClosed | 'pending'> =>
  Promise.race([conn.next(), new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

test(
  'a body that stops arriving is 408 with the error shape after the body timeout; ' +
    'the partial body is dropped and the connection closed',
  async (t) => {
    const server = await startTestServer({ env: { WATCHLOG_BODY_TIMEOUT_MS: '400' } });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    const head = await server.runtime.log.headPosition();

    const conn = await RawConnection.open(portOf(server.url));
    t.teardown(() => conn.destroy());
    const body = JSON.stringify(sampleEvent({ identifier: 'stalled' }));
    const sent = conn.write(
      rawRequest('POST', '/v1/audit', {
        'Content-Type': 'application/json',
        'X-API-Key': apiKey,
        'Content-Length': String(body.length),
      }),
    );
    conn.write(body.slice(0, 20));
    const answer = await within(conn, 10_000);
    t.true(answer !== 'pending' && !('closed' in answer), `a response, got ${JSON.stringify(answer)}`);
    const res = answer as RawResponse;
    t.is(res.status, 408);
    t.is(res.headers.connection, 'close');
    t.like(JSON.parse(res.body), { error: { code: 'request_timeout', details: [{ path: 'body' }] } });
    const waited = res.at - sent;
    // Not Node's 300 s: the configured 400 ms (the upper bound leaves room for a loaded machine).
    t.true(waited >= 380 && waited < 8000, `answered after ${waited} ms`);
    await conn.closed;
    // The rest of the body, had it come, would not have been taken for a request; nothing was stored.
    t.is(await server.runtime.log.headPosition(), head);

    // Login reads its body the same way.
    const loginConn = await RawConnection.open(portOf(server.url));
    t.teardown(() => loginConn.destroy());
    loginConn.write(
      rawRequest('POST', '/v1/auth/login', { 'Content-Type': 'application/json', 'Content-Length': '60' }, '{"email":'),
    );
    const loginAnswer = await within(loginConn, 10_000);
    t.like(loginAnswer, { status: 408 });

    // A body that keeps arriving, however slowly, is read: eight pieces 100 ms apart take twice the
    // 400 ms timeout in all, and leave a loaded machine 300 ms between two of them.
    const slow = await RawConnection.open(portOf(server.url));
    t.teardown(() => slow.destroy());
    slow.write(
      rawRequest('POST', '/v1/audit', {
        'Content-Type': 'application/json',
        'X-API-Key': apiKey,
        'Content-Length': String(body.length),
      }),
    );
    const piece = Math.ceil(body.length / 8);
    for (let i = 0; i < body.length; i += piece) {
      await new Promise((r) => setTimeout(r, 100));
      slow.write(body.slice(i, i + piece));
    }
    t.like(await within(slow, 10_000), { status: 202 });
  },
);

test(
  'a connection that never finishes its headers is cut after the headers timeout; ' + 'one that sends nothing too',
  async (t) => {
    const server = await startTestServer({ env: { WATCHLOG_HEADERS_TIMEOUT_MS: '500' } });
    t.teardown(() => server.stop());
    const port = portOf(server.url);
    const half = await RawConnection.open(port);
    const silent = await RawConnection.open(port);
    t.teardown(() => {
      half.destroy();
      silent.destroy();
    });
    const sent = half.write('POST /v1/audit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
    const [halfEnd, silentEnd] = await Promise.all([
      Promise.race([half.closed, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 10_000))]),
      Promise.race([silent.closed, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 10_000))]),
    ]);
    t.not(halfEnd, 'pending', 'the half-sent request is cut');
    t.not(silentEnd, 'pending', 'the silent connection is cut');
    const cutAfter = (halfEnd as RawClosed).at - sent;
    // Node checks every headersTimeout / 4 (here 125 ms).
    t.true(cutAfter >= 450 && cutAfter < 8000, `cut after ${cutAfter} ms`);
    // Closed without an answer.
    t.is((halfEnd as RawClosed).partial, '');

    // A request sent in time on another connection is served as usual.
    const ok = await RawConnection.open(port);
    t.teardown(() => ok.destroy());
    ok.write(rawRequest('GET', '/healthz'));
    t.like(await within(ok, 10_000), { status: 200 });
  },
);

test('connections beyond WATCHLOG_MAX_CONNECTIONS are refused while the earlier ones still work', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_MAX_CONNECTIONS: '2' } });
  t.teardown(() => server.stop());
  const port = portOf(server.url);
  const first = await RawConnection.open(port);
  const second = await RawConnection.open(port);
  t.teardown(() => {
    first.destroy();
    second.destroy();
  });
  for (const conn of [first, second]) {
    conn.write(rawRequest('GET', '/healthz'));
    t.like(await within(conn, 10_000), { status: 200 });
  }
  // The kernel completes the handshake; the server closes the connection at once, unanswered.
  const third = await RawConnection.open(port).catch((e: Error) => e);
  if (third instanceof RawConnection) {
    t.teardown(() => third.destroy());
    third.write(rawRequest('GET', '/healthz'));
    const answer = await within(third, 10_000);
    t.true(answer !== 'pending' && 'closed' in answer, `refused, got ${JSON.stringify(answer)}`);
  } else {
    t.regex(third.message, /ECONNRESET|ECONNREFUSED/);
  }
  // The first two keep working, on the same connections.
  for (const conn of [first, second]) {
    conn.write(rawRequest('GET', '/healthz'));
    t.like(await within(conn, 10_000), { status: 200 });
    t.false(conn.isClosed);
  }
  // A slot freed is a slot taken.
  first.destroy();
  await first.closed;
  await new Promise((r) => setTimeout(r, 50));
  const fourth = await RawConnection.open(port);
  t.teardown(() => fourth.destroy());
  fourth.write(rawRequest('GET', '/healthz'));
  t.like(await within(fourth, 10_000), { status: 200 });
});

test(
  'an idle keep-alive connection is closed after the keep-alive timeout; ' +
    'a request is cut after the request timeout however its body trickles',
  async (t) => {
    const server = await startTestServer({
      env: {
        WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: '300',
        WATCHLOG_HEADERS_TIMEOUT_MS: '400',
        WATCHLOG_REQUEST_TIMEOUT_MS: '1000',
        WATCHLOG_BODY_TIMEOUT_MS: '400',
      },
    });
    t.teardown(() => server.stop());
    const port = portOf(server.url);
    const idle = await RawConnection.open(port);
    t.teardown(() => idle.destroy());
    idle.write(rawRequest('GET', '/healthz'));
    const served = await within(idle, 10_000);
    t.like(served, { status: 200 });
    const idleEnd = await idle.closed;
    const idleFor = idleEnd.at - (served as RawResponse).at;
    t.true(idleFor >= 250 && idleFor < 8000, `closed after ${idleFor} ms idle`);

    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    const trickle = await RawConnection.open(port);
    t.teardown(() => trickle.destroy());
    const sent = trickle.write(
      rawRequest('POST', '/v1/audit', {
        'Content-Type': 'application/json',
        'X-API-Key': apiKey,
        'Content-Length': '4000',
      }),
    );
    const timer = setInterval(() => trickle.write(' '), 150);
    t.teardown(() => clearInterval(timer));
    const end = await Promise.race([
      trickle.closed,
      new Promise<'pending'>((r) => setTimeout(() => r('pending'), 10_000)),
    ]);
    clearInterval(timer);
    t.not(end, 'pending', 'the trickling request is cut');
    const after = (end as RawClosed).at - sent;
    t.true(after >= 900 && after < 8000, `cut after ${after} ms`);
    t.is((await api(server.url, 'GET', '/healthz')).status, 200);
  },
);
