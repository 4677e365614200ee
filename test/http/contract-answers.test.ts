import test from 'ava';
import { parse } from 'csv-parse/sync';
import { recordCheck } from '../../src/commands/monitors.ts';
import { runCheck } from '../../src/checks/probe.ts';
import { api, eventually, type TestServer } from '../helpers/server.ts';
import type { Target } from '../helpers/target.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { type ContractScenario, EVENTS, T0, eventTime, startContractScenario } from '../helpers/contract.ts';

/** The HTTP contract for what some answers hold: derived sessions as a bare array paged by
 *  X-Total-Count and a Link header, monitor timeouts up to the interval, check error texts in
 *  words, and statistics exact for bounds inside minutes. Methods, error messages, parameters and
 *  project filters are in contract.test.ts; the scenario is test/helpers/contract.ts. */

let server: TestServer;
let target: Target;
let admin: string;
let a: ContractScenario['a'];
let b: ContractScenario['b'];

test.before(async () => {
  ({ server, target, admin, a, b } = await startContractScenario());
});
test.after.always(async () => {
  await server.stop();
  await target.close();
});

test('item 8: derived sessions are a bare array, paged by X-Total-Count and a Link header', async (t) => {
  const res = await api(server.url, 'GET', `/v1/audit/sessions?project_id=${a.projectId}&limit=1&page=2`, {
    token: admin,
  });
  t.is(res.status, 200);
  t.true(Array.isArray(res.body));
  t.is(res.body.length, 1);
  t.deepEqual(Object.keys(res.body[0]).sort(), [
    'duration_seconds',
    'event_count',
    'identifier',
    'project_id',
    'service_name',
    'session_end',
    'session_start',
  ]);
  t.is(res.headers.get('x-total-count'), '3', 'user-0, user-1 and user-2');
  const link = (page: number) => `</v1/audit/sessions?project_id=${a.projectId}&limit=1&page=${page}>`;
  t.is(
    res.headers.get('link'),
    [`${link(1)}; rel="first"`, `${link(1)}; rel="prev"`, `${link(3)}; rel="next"`, `${link(3)}; rel="last"`].join(
      ', ',
    ),
  );
  const first = await api(server.url, 'GET', `/v1/audit/sessions?project_id=${a.projectId}`, { token: admin });
  t.is(first.body.length, 3);
  t.notRegex(first.headers.get('link') ?? '', /rel="(prev|next)"/);
  const none = await api(server.url, 'GET', '/v1/audit/sessions?identifier=nobody', { token: admin });
  t.deepEqual(none.body, []);
  t.is(none.headers.get('x-total-count'), '0');
});

test(
  'item 9: a timeout equal to the interval is accepted (interval 10 with the default timeout 10); ' +
    'a longer one is 400',
  async (t) => {
    const created = await api(server.url, 'POST', '/v1/monitors', {
      token: admin,
      body: { project_id: b.projectId, name: 'tight', url: target.url, interval_seconds: 10 },
    });
    t.is(created.status, 201);
    t.like(created.body, { interval_seconds: 10, timeout_seconds: 10 });
    const longer = await api(server.url, 'PUT', `/v1/monitors/${created.body.id}`, {
      token: admin,
      body: { timeout_seconds: 11 },
    });
    t.is(longer.status, 400);
    t.deepEqual(longer.body.error.details, [
      { path: 'timeout_seconds', message: 'must not exceed interval_seconds (10)' },
    ]);
    t.is(longer.body.error.message, 'invalid monitor: timeout_seconds must not exceed interval_seconds (10)');
  },
);

test.serial(
  'item 10: a check with an unexpected status carries "expected status 200, received 503" in the test endpoint, ' +
    'the monitor and its history',
  async (t) => {
    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token: admin,
        body: { project_id: b.projectId, name: 'flaky', url: target.url, timeout_seconds: 2 },
      })
    ).body;
    target.status = 503;
    t.teardown(() => {
      target.status = 200;
    });
    const text = 'expected status 200, received 503';
    const tried = await api(server.url, 'POST', `/v1/monitors/${monitor.id}/test`, { token: admin });
    t.like(tried.body, { ok: false, status_code: 503, error: text });
    await recordCheck(server.runtime.commands, monitor.id, await runCheck(monitor, defaultEgress), {
      actor: 'test',
      correlationId: 'test',
      now: () => new Date(),
    });
    const view = await eventually(async () => {
      const res = (await api(server.url, 'GET', `/v1/monitors/${monitor.id}`, { token: admin })).body;
      return res.status === 'DOWN' ? res : undefined;
    });
    t.is(view.last_error, text);
    const history = await eventually(async () => {
      const res = (await api(server.url, 'GET', `/v1/monitors/${monitor.id}/history`, { token: admin })).body;
      return res.length === 1 ? res : undefined;
    });
    t.like(history[0], { ok: false, status_code: 503, error: text });
    const down = await eventually(async () => {
      const res = await api(
        server.url,
        'GET',
        `/v1/audit?project_id=${b.projectId}&event_type=system.healthcheck.down`,
        { token: admin },
      );
      return res.body.data[0];
    });
    t.is((await api(server.url, 'GET', `/v1/audit/${down.id}`, { token: admin })).body.request_body.error, text);
  },
);

test('item 14: statistics count exactly the events of the list and the export for bounds inside minutes', async (t) => {
  const ranges: Array<[number, number]> = [
    [eventTime(3) + 500, eventTime(30) - 250], // 10:00:24.500 to 10:03:30.750: whole minutes between two ragged edges
    [eventTime(2), eventTime(4)], // within one minute, both ends on events
    [eventTime(8) - 1, eventTime(9) + 1], // across one minute boundary, no whole minute
    [T0 - 500, T0 + 3_600_000 + 500], // a whole hour (its roll-up) between two edges
  ];
  for (const [from, to] of ranges) {
    const q =
      `project_id=${a.projectId}&start_date=${new Date(from).toISOString()}` +
      `&end_date=${new Date(to).toISOString()}`;
    const listed = (await api(server.url, 'GET', `/v1/audit?${q}&event_type=http`, { token: admin })).body.pagination
      .totalItems;
    const exported = parse(
      (await api(server.url, 'GET', `/v1/audit/export?${q}&event_type=http`, { token: admin })).body,
      { columns: true },
    ).length;
    const expected = Array.from({ length: EVENTS }, (_, i) => eventTime(i)).filter(
      (ts) => ts >= from && ts <= to,
    ).length;
    t.is(listed, expected, q);
    t.is(exported, expected, q);
    for (const interval of ['minute', 'hour']) {
      const stats = (await api(server.url, 'GET', `/v1/audit/stats?${q}&interval=${interval}`, { token: admin })).body;
      t.is(stats.total, expected, `${q} by ${interval}`);
      t.is(
        stats.timeline.reduce((n: number, p: { total: number }) => n + p.total, 0),
        expected,
        `${q} timeline by ${interval}`,
      );
    }
  }
});
