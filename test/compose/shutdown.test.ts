import test from 'ava';
import Database from 'better-sqlite3';
import path from 'node:path';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { startTarget } from '../helpers/target.ts';
import { runCli, serviceSetup, startService, waitForLog, type CliProcess } from '../helpers/process.ts';
import { RawConnection, rawRequest, wallNow, type RawResponse } from '../helpers/raw-http.ts';

/** SIGTERM drains the real `watchlog start` process: requests in flight are answered, later ones
 *  are 503, nothing acknowledged is lost, slow clients do not hold it, and it exits 0. */

interface Sent {
  connection: number;
  writtenAt: number;
  response: RawResponse | null;
  /** How the connection ended when no response came. */
  closed: { at: number; error: string | null } | null;
}

const logLines = (p: CliProcess) =>
  p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string; time: number });

/** Every event of the project, from the JSON export. */
const exportedIds = async (url: string, token: string, projectId: string): Promise<Set<string>> => {
  const res = await api<Array<{ id: string }>>(url, 'GET', `/v1/audit/export?project_id=${projectId}&format=json`, {
    token,
  });
  if (res.status !== 200) throw new Error(`export: ${res.status}`);
  return new Set(res.body.map((e) => e.id));
};

const startServer = async (env: Record<string, string>) => {
  const p = runCli(['start'], env);
  await waitForLog(p, 'listening');
  return p;
};

test(
  'SIGTERM under load: in-flight requests answered, ' + 'later ones 503, no acknowledged event lost, exit 0',
  async (t) => {
    t.timeout(110_000);
    const { dataDir, port, url, env } = await serviceSetup(t);
    const first = await startService(t, env);
    const token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);

    const CONNECTIONS = 16;
    const sent: Sent[] = [];
    const refusedConnections: Array<{ at: number; code: string }> = [];
    let signalled = false;
    /** One client: requests back to back on a keep-alive connection; when the server closes it,
     *  a new connection, until one is refused. */
    const client = async (c: number) => {
      for (let i = 0; ; ) {
        let conn: RawConnection;
        try {
          conn = await RawConnection.open(port);
        } catch (error) {
          refusedConnections.push({ at: wallNow(), code: (error as Error).message });
          if (signalled) return;
          throw error;
        }
        for (;;) {
          i += 1;
          const body = JSON.stringify(sampleEvent({ identifier: `c${c}-${i}` }));
          const writtenAt = conn.write(
            rawRequest('POST', '/v1/audit', { 'Content-Type': 'application/json', 'X-API-Key': apiKey }, body),
          );
          const answer = await conn.next();
          if ('closed' in answer) {
            sent.push({ connection: c, writtenAt, response: null, closed: { at: answer.at, error: answer.error } });
            break;
          }
          sent.push({ connection: c, writtenAt, response: answer, closed: null });
          if (answer.headers.connection === 'close') {
            await conn.closed;
            break;
          }
        }
      }
    };
    const clients = Array.from({ length: CONNECTIONS }, (_, c) => client(c));
    // Under load for a while.
    await eventually(
      async () => (sent.filter((s) => s.response?.status === 202).length >= 500 ? true : undefined),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    const killedAt = wallNow();
    signalled = true;
    first.child.kill('SIGTERM');
    await Promise.all(clients);
    const code = await first.exited;
    const exitedAt = wallNow();

    const lines = logLines(first);
    const shuttingDown = lines.find((l) => l.msg === 'shutting down');
    const stopped = lines.find((l) => l.msg === 'stopped');
    t.is(
      code,
      0,
      `exit code; last lines: ${lines
        .slice(-5)
        .map((l) => JSON.stringify(l))
        .join('\n')}`,
    );
    t.truthy(shuttingDown);
    t.truthy(stopped);
    const drainStart = shuttingDown!.time;

    const acknowledged = sent.filter((s) => s.response?.status === 202);
    const unanswered = sent.filter((s) => s.response === null);
    const afterSignal = sent.filter((s) => s.response !== null && s.response.at > killedAt);
    // No request sent before the signal went unanswered: a connection reset without an answer is
    // only ever a request written after the server closed that connection.
    t.deepEqual(
      unanswered.filter((s) => s.writtenAt <= killedAt),
      [],
    );
    // After the signal, answers are 202 (requests in flight, finished) or 503.
    t.deepEqual(
      afterSignal
        .filter((s) => s.response!.status !== 202 && s.response!.status !== 503)
        .map((s) => s.response!.status),
      [],
    );
    // A request that reached the server after it began draining is never processed.
    t.deepEqual(
      sent
        .filter((s) => s.writtenAt > drainStart + 1 && s.response?.status === 202)
        .map((s) => s.writtenAt - drainStart),
      [],
    );
    // 503s close their connection and say when to retry; not processed, nothing stored.
    for (const s of sent.filter((x) => x.response?.status === 503)) {
      t.is(s.response!.headers.connection, 'close');
      t.is(s.response!.headers['retry-after'], '1');
      t.like(JSON.parse(s.response!.body), { error: { code: 'shutting_down' } });
    }
    // A 202 answered during the drain is its connection's last answer, and says so.
    const closingAcks = acknowledged.filter((s) => s.response!.headers.connection === 'close');
    t.true(closingAcks.length <= CONNECTIONS);
    for (const c of new Set(closingAcks.map((s) => s.connection))) {
      t.true(closingAcks.filter((s) => s.connection === c).length <= 1);
    }
    // New connections are refused once the drain has begun.
    t.true(
      refusedConnections.every((r) => /ECONNREFUSED|ECONNRESET/.test(r.code)),
      JSON.stringify(refusedConnections),
    );
    t.true(refusedConnections.length >= CONNECTIONS, 'every client ended on a refused connection');

    const drain = stopped!.http as Record<string, number>;
    const answeredWith = (status: number) => afterSignal.filter((s) => s.response!.status === status).length;
    t.log(
      `load: ${acknowledged.length} acknowledged, ${CONNECTIONS} connections; ` +
        `after SIGTERM: ${answeredWith(202)} × 202, ${answeredWith(503)} × 503, ` +
        `${unanswered.length} unanswered (written after the signal); ` +
        `drain ${drain.ms} ms (in flight ${drain.in_flight}, refused ${drain.refused}, ` +
        `idle closed ${drain.idle_closed}, cut ${drain.cut}); ` +
        `shutdown ${String(stopped!.ms)} ms; SIGTERM to exit ${Math.round(exitedAt - killedAt)} ms`,
    );
    t.is(drain.cut, 0);
    // The projectors released their leases (the next holder need not wait for them).
    const views = new Database(path.join(dataDir, 'views.db'), { readonly: true });
    t.deepEqual(views.prepare("SELECT projection, holder FROM leases WHERE holder != ''").all(), []);
    views.close();

    // Every acknowledged event is in the log after a restart, and nothing else is.
    const second = await startServer(env);
    t.teardown(() => second.child.kill('SIGKILL'));
    const ids = await eventually(async () => {
      const found = await exportedIds(url, token, projectId);
      return found.size >= acknowledged.length ? found : undefined;
    }, 30_000);
    const lost = acknowledged.filter((s) => !ids.has((JSON.parse(s.response!.body) as { id: string }).id));
    t.is(lost.length, 0, 'acknowledged events lost');
    t.is(ids.size, acknowledged.length, 'events stored without a 202');
    second.child.kill('SIGTERM');
    t.is(await second.exited, 0);
  },
);

test(
  'SIGTERM with slow clients: a request in flight is answered, an idle keep-alive connection is closed at once, ' +
    'a stalled body is 408, half-sent headers are cut or 503, and the process exits 0 within the timeout',
  async (t) => {
    t.timeout(90_000);
    const { port, url, env } = await serviceSetup(t, {
      WATCHLOG_SHUTDOWN_TIMEOUT_MS: '6000',
      // The clients' own timeouts are far away: only the drain may end them.
      WATCHLOG_HEADERS_TIMEOUT_MS: '60000',
      WATCHLOG_REQUEST_TIMEOUT_MS: '120000',
      WATCHLOG_BODY_TIMEOUT_MS: '60000',
      WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: '60000',
    });
    const first = await startService(t, env);
    const token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    const ingest = (identifier: string) => {
      const body = JSON.stringify(sampleEvent({ identifier }));
      return {
        head: rawRequest('POST', '/v1/audit', {
          'Content-Type': 'application/json',
          'X-API-Key': apiKey,
          'Content-Length': String(body.length),
        }),
        body,
      };
    };

    // Idle: one request answered, then nothing.
    const idle = await RawConnection.open(port);
    idle.write(rawRequest('GET', '/healthz'));
    t.like(await idle.next(), { status: 200 });
    // Headers sent, body never.
    const stalled = await RawConnection.open(port);
    const stalledRequest = ingest('stalled');
    stalled.write(stalledRequest.head);
    stalled.write(stalledRequest.body.slice(0, 10));
    // Half the headers, never the rest.
    const halfHeaders = await RawConnection.open(port);
    halfHeaders.write('POST /v1/audit HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Half the headers now, the rest after the signal.
    const late = await RawConnection.open(port);
    const lateRequest = ingest('late');
    late.write(lateRequest.head.slice(0, 30));
    // In flight at the signal: headers and half the body before it, the rest after.
    const inFlight = await RawConnection.open(port);
    const inFlightRequest = ingest('in-flight');
    inFlight.write(inFlightRequest.head + inFlightRequest.body.slice(0, 20));
    t.teardown(() => {
      for (const c of [idle, stalled, halfHeaders, late, inFlight]) c.destroy();
    });
    await new Promise((r) => setTimeout(r, 300));

    const killedAt = wallNow();
    first.child.kill('SIGTERM');
    await waitForLog(first, 'shutting down');
    late.write(lateRequest.head.slice(30) + lateRequest.body);
    inFlight.write(inFlightRequest.body.slice(20));

    const code = await first.exited;
    const tookMs = wallNow() - killedAt;
    t.is(code, 0, first.stdout().split('\n').slice(-4).join('\n'));
    t.true(tookMs < 6000, `exited after ${tookMs} ms`);

    // The idle connection: closed at once, nothing written to it.
    const idleEnd = await idle.closed;
    t.is(idleEnd.partial, '');
    t.true(idleEnd.at - killedAt < 3000, `idle closed after ${idleEnd.at - killedAt} ms`);
    // The stalled body: 408 within the drain's 1 s (not the configured 60 s), connection closed.
    const stalledAnswer = await stalled.next();
    t.like(stalledAnswer, { status: 408, headers: { connection: 'close' } });
    t.like(JSON.parse((stalledAnswer as RawResponse).body), { error: { code: 'request_timeout' } });
    t.true(
      (stalledAnswer as RawResponse).at - killedAt < 4000,
      `408 after ${(stalledAnswer as RawResponse).at - killedAt} ms`,
    );
    // Headers never finished: closed without an answer after the grace.
    const halfEnd = await halfHeaders.closed;
    t.is(halfEnd.partial, '');
    // Headers finished after the signal: 503, closed, not processed.
    const lateAnswer = await late.next();
    t.like(lateAnswer, { status: 503, headers: { connection: 'close', 'retry-after': '1' } });
    await late.closed;

    // In flight: answered as usual, and told the connection closes.
    const inFlightAnswer = await inFlight.next();
    t.like(inFlightAnswer, { status: 202, headers: { connection: 'close' } });
    await inFlight.closed;

    const stopped = logLines(first).find((l) => l.msg === 'stopped');
    t.like(stopped, { http: { in_flight: 2, refused: 1, cut: 1 } });
    t.log(`slow clients: SIGTERM to exit ${Math.round(tookMs)} ms; drain ${JSON.stringify(stopped?.http)}`);

    // The in-flight event was stored, neither the stalled nor the late one: once an event sent
    // after the restart is in the read model, those two are the only ones.
    const second = await startServer(env);
    t.teardown(() => second.child.kill('SIGKILL'));
    const marker = await api<{ id: string }>(url, 'POST', '/v1/audit', {
      apiKey,
      body: sampleEvent({ identifier: 'marker' }),
    });
    t.is(marker.status, 202);
    const ids = await eventually(async () => {
      const found = await exportedIds(url, token, projectId);
      return found.has(marker.body.id) ? found : undefined;
    }, 30_000);
    t.deepEqual(
      [...ids].sort(),
      [marker.body.id, (JSON.parse((inFlightAnswer as RawResponse).body) as { id: string }).id].sort(),
    );
    second.child.kill('SIGTERM');
    t.is(await second.exited, 0);
  },
);

test('stopping the jobs lets a check under way finish and record its result', async (t) => {
  const server = await startTestServer({ jobs: true });
  const target = await startTarget(200);
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  target.delayMs = 1500;
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token);
  const monitor = await api<{ id: string }>(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'slow', url: target.url, interval_seconds: 60, timeout_seconds: 10 },
  });
  t.is(monitor.status, 201);
  await eventually(async () => (target.hits > 0 ? true : undefined), 10_000);
  const stopping = performance.now();
  await server.jobs!.stop();
  const waited = performance.now() - stopping;
  t.true(waited > 1000, `stop() returned after ${Math.round(waited)} ms, before the check ended`);
  t.is(server.jobs!.runningNow(), 0);
  const history = await eventually(async () => {
    const res = await api<unknown[]>(server.url, 'GET', `/v1/monitors/${monitor.body.id}/history`, { token });
    return res.body.length > 0 ? res.body : undefined;
  });
  t.like(history[0], { status_code: 200, ok: true });
});
