import test from 'ava';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CliProcess, serviceSetup, startService } from '../helpers/process.ts';
import { api, login } from '../helpers/server.ts';

/** WATCHLOG_CONFIG_FILE on `watchlog start` (a real process): applied at start-up; a broken file
 *  changes nothing and is logged with its position; SIGHUP applies the file again; no secret
 *  reaches the log. */

const HEADER = 'header-secret-5d1c7a9e';

const file = (interval: string, extra = '') => `projects:
  - name: shop
    monitors:
      - name: checkout-api
        url: https://shop.example.com/healthz
        interval_seconds: ${interval}
        headers:
          X-Probe-Key: \${PROBE_KEY}${extra}
    retention_days: 30
`;

/** The log lines with this `msg`, once there are at least `count` of them. */
const lines = async (p: CliProcess, msg: string, count: number, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = p
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.msg === msg);
    if (found.length >= count) return found;
    if (Date.now() > deadline || p.child.exitCode !== null)
      throw new Error(`fewer than ${count} "${msg}" lines; stdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

test('the file is applied at start-up; a broken one changes nothing; SIGHUP applies it again', async (t) => {
  const setup = await serviceSetup(t);
  const config = path.join(setup.dataDir, 'watchlog.yaml');
  writeFileSync(config, file('30'));
  const service = await startService(t, { ...setup.env, WATCHLOG_CONFIG_FILE: config, PROBE_KEY: HEADER });
  const [applied] = await lines(service, 'configuration file applied', 1);
  t.like(applied, { reason: 'start-up', create: 3 });

  const token = await login(setup.url);
  const shop = (
    (await api(setup.url, 'GET', '/v1/projects', { token })).body as Array<{ id: string; name: string }>
  ).find((p) => p.name === 'shop')!;
  const monitor = async () => (await api(setup.url, 'GET', `/v1/monitors?project_id=${shop.id}`, { token })).body[0];
  t.is((await monitor()).interval_seconds, 30);

  writeFileSync(config, file('5', '\n        colour: red'));
  const [refused] = await lines(service, 'configuration file refused: nothing changed', 1);
  t.deepEqual(refused!.faults, [
    'watchlog.yaml:9:9 projects[0].monitors[0].colour: is not a known field',
    'watchlog.yaml:6:27 projects[0].monitors[0].interval_seconds: must be an integer from 10 to 86400',
  ]);
  t.is((await monitor()).interval_seconds, 30);

  // Changed by hand, then the corrected file: SIGHUP (as well as the change) applies it.
  writeFileSync(config, file('45'));
  await lines(service, 'configuration file applied', 2);
  t.is((await monitor()).interval_seconds, 45);
  const id = (await monitor()).id as string;
  t.is((await api(setup.url, 'PUT', `/v1/monitors/${id}`, { token, body: { interval_seconds: 60 } })).status, 200);
  service.child.kill('SIGHUP');
  const hup = await lines(service, 'configuration file applied', 3);
  t.like(hup[2], { reason: 'SIGHUP', change: 1 });
  t.is((await monitor()).interval_seconds, 45);
  t.false(service.stdout().includes(HEADER));
  t.false(service.stderr().includes(HEADER));
});
