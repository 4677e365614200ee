import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import { CHECK_JOB, WorkerJobs } from '../../src/jobs/worker-jobs.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';

test(
  "a check that outlasts its lock's lifetime renews it: no other worker runs it meanwhile, " +
    'and it ends unlocked and not failed',
  async (t) => {
    const server = await startTestServer();
    let answered = 0;
    // Three lock lifetimes (300 ms) per answer.
    const target = http.createServer((_req, res) => {
      setTimeout(() => {
        answered += 1;
        res.writeHead(200).end();
      }, 900);
    });
    target.listen(0, '127.0.0.1');
    await new Promise((r) => target.once('listening', r));
    const workers: WorkerJobs[] = [];
    t.teardown(async () => {
      for (const w of workers) await w.stop();
      await server.stop();
      await new Promise((r) => target.close(r));
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token);
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'slow', url, timeout_seconds: 5 },
    });

    const file = path.join(server.dataDir, 'lock-jobs.db');
    let started = 0;
    for (let i = 0; i < 2; i++) {
      const backend = new SqliteBackend(file);
      const jobs = new WorkerJobs(
        backend,
        { log: server.runtime.log, monitors: server.runtime.readModels.monitors, egress: defaultEgress },
        pino({ level: 'silent' }),
        { lockLifetimeMs: 300, processEveryMs: 20, reconcileEveryMs: 50 },
      );
      jobs.agenda.on(`start:${CHECK_JOB}`, () => {
        started += 1;
      });
      workers.push(jobs);
      await jobs.start();
    }
    const job = async () => (await workers[0]!.agenda.queryJobs({ name: CHECK_JOB })).jobs[0];
    const firstLock = await eventually(async () => (await job())?.lockedAt?.getTime());
    const renewed = await eventually(async () => {
      const lockedAt = (await job())?.lockedAt?.getTime();
      return lockedAt !== undefined && lockedAt > firstLock ? lockedAt : undefined;
    });
    t.true(renewed > firstLock, 'the lock was renewed while the check ran');
    const done = await eventually(async () => {
      const j = await job();
      return j?.lastFinishedAt === undefined ? undefined : j;
    }, 10_000);
    t.is(answered, 1);
    t.is(started, 1, 'one worker ran the check');
    t.is(done.lockedAt, undefined, 'a renewal did not lock it again after the run');
    t.is(done.failReason, undefined);
  },
);
