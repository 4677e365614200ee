import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import { WorkerJobs } from '../../src/jobs/worker-jobs.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';

/** A target that answers 503 to the next `failures` requests, then 200. */
const flaky = async () => {
  const state = { failures: 0, hits: 0 };
  const server = http.createServer((_req, res) => {
    state.hits += 1;
    if (state.failures > 0) {
      state.failures -= 1;
      res.writeHead(503).end();
    } else res.writeHead(200).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((r) => server.close(r)),
  };
};

test(
  'a monitor that fails once just after a restart is checked again before it may go DOWN; ' +
    'later, one failure is enough',
  async (t) => {
    const server = await startTestServer();
    const target = await flaky();
    t.teardown(async () => {
      await server.stop();
      await target.close();
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token);
    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'flaky', url: target.url, timeout_seconds: 2 },
      })
    ).body;

    // A worker that has just (re)started, on a clock the test moves.
    let offsetMs = 0;
    const backend = new SqliteBackend(path.join(server.dataDir, 'restart-jobs.db'));
    const jobs = new WorkerJobs(
      backend,
      { log: server.runtime.log, monitors: server.runtime.readModels.monitors, egress: defaultEgress },
      pino({ level: 'silent' }),
      {
        now: () => new Date(Date.now() + offsetMs),
        recheckDelayMs: 10,
      },
    );
    await jobs.check(monitor.id);
    const events = async () => (await server.runtime.log.readStream(`monitor-${monitor.id}`)).map((e) => e.type);
    t.deepEqual(await events(), ['MonitorCreated', 'MonitorStatusEstablished']);

    target.state.failures = 1;
    await jobs.check(monitor.id);
    t.is(target.state.hits, 3, 'the failure was checked again');
    t.deepEqual(
      await events(),
      ['MonitorCreated', 'MonitorStatusEstablished'],
      'no DOWN for a failure the second look did not confirm',
    );

    // Past the monitor's first interval (60 s) after the start, a failure is a transition at once.
    offsetMs = 61_000;
    target.state.failures = 1;
    await jobs.check(monitor.id);
    t.is(target.state.hits, 4);
    t.deepEqual(await events(), ['MonitorCreated', 'MonitorStatusEstablished', 'MonitorWentDown']);
    await eventually(async () =>
      (await api(server.url, 'GET', `/v1/monitors/${monitor.id}`, { token })).body.status === 'DOWN' ? true : undefined,
    );
  },
);
