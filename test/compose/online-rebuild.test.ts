import test from 'ava';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { api, eventually, login, projectWithKey } from '../helpers/server.ts';
import { converged, load } from '../helpers/load.ts';
import { runCli, serviceSetup, startService, waitForLog } from '../helpers/process.ts';

/** `watchlog rebuild` beside a running `watchlog start` under ingest: the API answers from the
 *  old read models all through it, the service moves to the new generation when it is published,
 *  and every acknowledged event is in the new read models once. */
test(
  'a rebuild during live ingest: the API keeps answering, ' +
    'the service moves to the new read models, nothing lost or counted twice',
  async (t) => {
    const setup = await serviceSetup(t);
    const service = await startService(t, setup.env, 60_000);
    const token = await login(setup.url);
    const { projectId, apiKey } = await projectWithKey(setup.url, token);
    const running = load(setup.url, apiKey, 4);
    await eventually(async () => (running.acked.length > 500 ? true : undefined), 60_000);

    // Readers all through the rebuild: every answer is a 200 with the events seen so far.
    const answers: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const res = await api(setup.url, 'GET', `/v1/audit?project_id=${projectId}&limit=1`, { token });
        answers.push(res.status === 200 ? (res.body.pagination.totalItems as number) : -res.status);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const rebuild = runCli(['rebuild'], setup.env);
    const code = await rebuild.exited;
    t.is(code, 0, rebuild.stderr());
    t.regex(rebuild.stderr(), /published/);
    await waitForLog(service, 'moved to the read models a rebuild published', 20_000);
    const acknowledgedAtSwitch = running.acked.length;
    await eventually(async () => (running.acked.length > acknowledgedAtSwitch + 200 ? true : undefined), 60_000);
    await running.stop();
    reading = false;
    await reader;

    t.true(answers.length > 10, `read ${answers.length} times`);
    t.deepEqual(
      answers.filter((n) => n < 0),
      [],
      'every read during the rebuild was answered',
    );
    t.deepEqual(running.refused, [], 'ingest never stopped');

    const views = path.join(setup.dataDir, 'views.db');
    t.true(lstatSync(views).isSymbolicLink());
    t.is(readlinkSync(views), 'views-1.db');
    t.false(existsSync(`${views}-wal`), "the old generation's WAL is gone");
    const log = new SqliteEventLog(path.join(setup.dataDir, 'log.db'));
    t.teardown(() => log.close());
    await converged(
      t,
      setup.url,
      token,
      projectId,
      running.acked,
      async () => (await log.readStream(`audit-${projectId}`)).length,
    );
  },
);
