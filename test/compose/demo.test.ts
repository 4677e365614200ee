import test from 'ava';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { api, eventually, tempDir } from '../helpers/server.ts';
import { freePort, runCli, type CliProcess } from '../helpers/process.ts';

const READY = /watchlog demo ready: open (\S+) and sign in as (\S+) with password (\S+)/;

const waitForReady = async (p: CliProcess, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = READY.exec(p.stdout());
    if (match) return { url: match[1]!, email: match[2]!, password: match[3]! };
    if (p.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no ready line; stdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

interface Page<T> {
  data: T[];
  pagination: { totalItems: number };
}
interface Item {
  id: string;
  timestamp: string;
  status_code?: number;
  path: string;
  service_name: string;
  request_body?: Record<string, unknown>;
}

test('`watchlog demo` fills a day of traffic, raises an alert, runs monitors, and prints how to sign in', async (t) => {
  const dataDir = tempDir('watchlog-demo-');
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const p = runCli(['demo'], { PORT: String(port), WATCHLOG_DATA_DIR: dataDir, WATCHLOG_DEMO_EVENTS: '3000' });
  t.teardown(() => p.child.kill('SIGKILL'));
  const ready = await waitForReady(p);
  t.is(ready.url, `http://127.0.0.1:${port}`);
  t.is(ready.email, 'demo@watchlog.local');
  t.regex(p.stderr(), /appended 3,000 events in [\d.]+ s \([\d,]+ events\/s\)/);
  t.is(
    p
      .stdout()
      .split('\n')
      .filter((line) => READY.test(line)).length,
    1,
    'one line says how to sign in',
  );

  const login = await api(ready.url, 'POST', '/v1/auth/login', {
    body: { email: ready.email, password: ready.password },
  });
  t.is(login.status, 200);
  const token = (login.body as { token: string }).token;
  const get = async <T>(url: string): Promise<T> => {
    const res = await api(ready.url, 'GET', url, { token });
    t.is(res.status, 200, url);
    return res.body as T;
  };

  const projects = await get<Array<{ id: string; name: string }>>('/v1/projects');
  const shop = projects.find((x) => x.name === 'Acme Shop')!;
  t.truthy(shop);
  t.truthy(projects.find((x) => x.name === 'Acme Back Office'));
  const q = `project_id=${shop.id}`;

  // The shop's public status page: its monitors, the catalog's incident, Sunday's maintenance.
  t.regex(p.stdout(), new RegExp(`status page: ${ready.url}/status/shop`));
  const statusPage = await fetch(`${ready.url}/status/shop`);
  t.is(statusPage.status, 200);
  const html = await statusPage.text();
  for (const shown of ['Shop status', 'catalog', 'Catalog unavailable', 'Database upgrade'])
    t.true(html.includes(shown), shown);

  // The day spans hours: events from 20 h ago and from the last hour.
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
  const old = await get<Page<Item>>(`/v1/audit?${q}&start_date=${hoursAgo(24)}&end_date=${hoursAgo(20)}&limit=1`);
  const recent = await get<Page<Item>>(`/v1/audit?${q}&start_date=${hoursAgo(1)}&limit=1`);
  t.true(old.pagination.totalItems > 0, 'events 20 to 24 hours old');
  t.true(recent.pagination.totalItems > 0, 'events of the last hour');

  const stats = await get<{
    total: number;
    errors_4xx: number;
    errors_5xx: number;
    p95_response_time: number;
    avg_response_time: number;
  }>(`/v1/audit/stats?${q}`);
  t.true(stats.total > 1500, `total ${stats.total}`);
  t.true(stats.errors_4xx > 0 && stats.errors_4xx < stats.total * 0.15, `4xx ${stats.errors_4xx}`);
  t.true(stats.errors_5xx > 0 && stats.errors_5xx < stats.errors_4xx, `5xx ${stats.errors_5xx}`);
  t.true(stats.p95_response_time > stats.avg_response_time, 'latencies have a tail');

  // Secrets in bodies are masked as ingest masks them.
  const checkouts = await get<Page<Item>>(`/v1/audit?${q}&service_name=checkout-api&method=POST&limit=100`);
  const checkout = checkouts.data.find((e) => e.path === '/v1/checkout');
  t.truthy(checkout, 'a checkout');
  const full = await get<Item>(`/v1/audit/${checkout!.id}`);
  const payment = (full.request_body as { payment: { cvv: string; card_number: string } }).payment;
  t.is(payment.cvv, '********');
  t.regex(payment.card_number, /^\*{4} \*{4} \*{4} \d{4}$/);

  const alerts = await eventually(async () => {
    const page = await get<Page<{ path: string; open: boolean }>>(`/v1/audit/anomalies?${q}&rule=brute_force`);
    return page.data.length > 0 ? page : undefined;
  }, 10_000);
  t.is(alerts.data[0]!.path, 'brute_force');

  const monitors = await eventually(async () => {
    const list = await get<Array<{ name: string; status: string }>>(`/v1/monitors?${q}`);
    return list.some((m) => m.status === 'UP') && list.some((m) => m.status === 'DOWN') ? list : undefined;
  }, 10_000);
  t.deepEqual(monitors.map((m) => m.status).sort(), ['DOWN', 'UP']);

  const sessions = await get<Array<{ event_count: number; identifier: string }>>(`/v1/audit/sessions?${q}&limit=50`);
  t.true(
    sessions.some((s) => s.event_count > 1),
    'derived sessions of several events',
  );
  // List items leave session_id out; the full events carry it (7 storefront visits in 10 do).
  let sessionId: string | undefined;
  for (const item of (await get<Page<Item>>(`/v1/audit?${q}&service_name=storefront&limit=20`)).data) {
    sessionId ??= (await get<{ session_id?: string }>(`/v1/audit/${item.id}`)).session_id;
  }
  t.truthy(sessionId, 'explicit session ids');
  t.true((await get<{ event_count: number }>(`/v1/audit/sessions/${sessionId}`)).event_count >= 1);

  const orphans = await get<Page<Item>>(`/v1/audit/orphans?${q}`);
  t.true(orphans.pagination.totalItems > 0, 'browser events no backend answered');
  t.true(orphans.data.every((e) => e.service_name === 'storefront'));

  // A second run empties its own directory and fills it afresh.
  p.child.kill('SIGTERM');
  t.is(await p.exited, 0);
  const again = runCli(['demo'], {
    PORT: String(await freePort()),
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_DEMO_EVENTS: '500',
  });
  t.teardown(() => again.child.kill('SIGKILL'));
  await waitForReady(again);
  again.child.kill('SIGTERM');
  t.is(await again.exited, 0);
});

test('`watchlog demo` refuses, in one line, a directory it did not make', async (t) => {
  const dataDir = tempDir('watchlog-demo-');
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'log.db'), '');
  const p = runCli(['demo'], { PORT: String(await freePort()), WATCHLOG_DATA_DIR: dataDir });
  t.is(await p.exited, 1);
  t.is(
    p.stderr(),
    `watchlog: demo: ${dataDir} already holds a watchlog event log (users, projects, events) ` +
      'that the demo did not make; run the demo on another directory (WATCHLOG_DATA_DIR)\n',
  );
  t.is(p.stdout(), '');
});
