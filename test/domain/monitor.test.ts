import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { MonitorCreateInput, MonitorUpdateInput } from '../../src/domain/monitor-input.ts';
import { transitionAuditEvent } from '../../src/domain/monitor-audit.ts';
import {
  decideTransition,
  decideUpdate,
  evolveMonitor,
  initialMonitor,
  monitorDecider,
  type CheckResult,
  type MonitorState,
} from '../../src/domain/monitor.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { decodeEvent } from '../../src/domain/events.ts';

const created: MonitorState = evolveMonitor(initialMonitor, {
  type: 'MonitorCreated',
  data: {
    monitor_id: 'm1',
    project_id: 'p1',
    created_at: '2026-11-23T10:00:00.000Z',
    name: 'orders',
    url: 'http://127.0.0.1/health',
    interval_seconds: 60,
    timeout_seconds: 10,
    expected_status: 200,
    enabled: true,
  },
});
const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, s)).toISOString();
const pass = (s: number): CheckResult => ({ checked_at: at(s), ok: true, status_code: 200, response_ms: 12 });
const fail = (s: number): CheckResult => ({ checked_at: at(s), ok: false, status_code: 503, response_ms: 30 });
const timeout = (s: number): CheckResult => ({
  checked_at: at(s),
  ok: false,
  response_ms: 10_000,
  error: 'timeout: no response within 10 s',
});

/** Runs checks through decide and evolve, returning the transition types. */
const run = (results: CheckResult[]) => {
  let state = created;
  const out: string[] = [];
  for (const r of results) {
    const tr = decideTransition(state, r);
    out.push(tr?.type ?? '-');
    if (tr) state = evolveMonitor(state, tr);
  }
  return { out, state };
};

test('SPEC 3.1: only UP→DOWN and DOWN→UP are transitions; repeats are silent', (t) => {
  t.deepEqual(run([pass(0), pass(10), fail(20), fail(30), timeout(40), pass(50), pass(60)]).out, [
    'MonitorStatusEstablished',
    '-',
    'MonitorWentDown',
    '-',
    '-',
    'MonitorCameUp',
    '-',
  ]);
});

test('the first check sets the state: a first failure is a transition to DOWN', (t) => {
  const { out, state } = run([fail(0), fail(10)]);
  t.deepEqual(out, ['MonitorWentDown', '-']);
  t.is(state.status, 'DOWN');
  t.is(state.statusSince, at(0));
});

test('coming up carries the downtime since going down, in whole seconds', (t) => {
  let state = evolveMonitor(created, decideTransition(created, pass(0))!);
  state = evolveMonitor(state, decideTransition(state, timeout(10))!);
  const up = decideTransition(state, pass(95));
  t.is(up?.type, 'MonitorCameUp');
  t.like(up?.data, { downtime_seconds: 85, status_code: 200, name: 'orders' });
});

test('a failure records the SPEC 6.1 error text: the error, or expected versus received', (t) => {
  const down = decideTransition(evolveMonitor(created, decideTransition(created, pass(0))!), fail(10));
  t.like(down?.data, { error: 'expected status 200, received 503', status_code: 503, expected_status: 200 });
  const timedOut = decideTransition(created, timeout(0));
  t.like(timedOut?.data, { error: 'timeout: no response within 10 s' });
  t.false('status_code' in (timedOut?.data ?? {}));
});

test('transitions become system.healthcheck audit events with the 6.1 request_body', (t) => {
  const down = decideTransition(created, fail(0));
  if (down?.type !== 'MonitorWentDown') return t.fail();
  const event = transitionAuditEvent('e1', down);
  t.like(event, {
    id: 'e1',
    event_type: 'system.healthcheck.down',
    service_name: 'orders',
    path: 'http://127.0.0.1/health',
    identifier: 'system',
    method: 'GET',
    timestamp: at(0),
    project_id: 'p1',
  });
  t.deepEqual(event.request_body, {
    url: 'http://127.0.0.1/health',
    expected_status: 200,
    status_code: 503,
    response_ms: 30,
    error: 'expected status 200, received 503',
  });
});

test('deleted or unknown monitors decide nothing', (t) => {
  t.is(decideTransition(initialMonitor, fail(0)), null);
  t.is(
    decideTransition(
      evolveMonitor(created, {
        type: 'MonitorDeleted',
        data: { monitor_id: 'm1', project_id: 'p1', deleted_at: at(1) },
      }),
      fail(2),
    ),
    null,
  );
});

test(
  'create input: defaults are not invented by the codec; ' + 'bounds, URL schemes and unknown fields are checked',
  (t) => {
    const ok = MonitorCreateInput.decode({
      project_id: '00000000-0000-4000-8000-000000000000',
      name: 'a',
      url: 'https://example.com/x',
    });
    t.true(isRight(ok));
    t.false(
      isRight(
        MonitorCreateInput.decode({
          project_id: '00000000-0000-4000-8000-000000000000',
          name: 'a',
          url: 'https://example.com/x',
          extra: 1,
        }),
      ),
    );
    for (const bad of [
      { interval_seconds: 9 },
      { interval_seconds: 86_401 },
      { interval_seconds: 10.5 },
      { timeout_seconds: 0 },
      { expected_status: 99 },
      { expected_status: 600 },
      { url: 'ftp://example.com' },
      { url: 'not a url' },
      { name: '' },
    ]) {
      t.false(
        isRight(
          MonitorCreateInput.decode({
            project_id: '00000000-0000-4000-8000-000000000000',
            name: 'a',
            url: 'http://x.test',
            ...bad,
          }),
        ),
        JSON.stringify(bad),
      );
    }
    t.true(isRight(MonitorUpdateInput.decode({ enabled: false })));
  },
);

test('an update keeps only real changes and refuses a timeout longer than the interval', (t) => {
  t.deepEqual(decideUpdate(created, { name: 'orders', enabled: false }), { enabled: false });
  t.deepEqual(decideUpdate(created, { timeout_seconds: 60 }), { timeout_seconds: 60 }, 'as long as the interval');
  const error = t.throws(() => decideUpdate(created, { timeout_seconds: 61 }), { instanceOf: DomainError });
  t.deepEqual(
    error?.details.map((d) => d.path),
    ['timeout_seconds'],
  );
});

test(
  'a check under a maintenance window marks its transitions, which otherwise follow the same rule; ' +
    'events recorded before the mark decode as they did',
  (t) => {
    const up = evolveMonitor(created, decideTransition(created, pass(0))!);
    const down = monitorDecider.decide({ type: 'RecordCheck', result: fail(10), in_maintenance: true }, up);
    t.deepEqual(
      down.map((e) => e.type),
      ['MonitorWentDown'],
    );
    t.like(down[0]!.data, { in_maintenance: true, went_down_at: at(10) });
    const back = decideTransition(evolveMonitor(up, down[0]!), pass(20), true);
    t.like(back?.data, { in_maintenance: true, downtime_seconds: 10 });
    t.false('in_maintenance' in (decideTransition(up, fail(10))?.data ?? {}), 'outside a window: no mark');
    t.false('in_maintenance' in (decideTransition(created, pass(0), true)?.data ?? {}), 'no transition, no mark');
    const { in_maintenance: _, ...unmarked } = down[0]!.data as Record<string, unknown>;
    t.deepEqual(decodeEvent('1', 'MonitorWentDown', unmarked).data, unmarked);
    t.notThrows(() => decodeEvent('2', 'CheckRecorded', { monitor_id: 'm1', project_id: 'p1', ...fail(30) }));
    t.throws(() => decodeEvent('3', 'MonitorWentDown', { ...unmarked, in_maintenance: false }), {
      message: /invalid field/,
    });
  },
);
