import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import {
  monitorDecider,
  type CheckResult,
  type MonitorCommand,
  type MonitorSettings,
} from '../../src/domain/monitor.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';
import type { MonitorUpdateInput } from '../../src/domain/monitor-input.ts';

const spec = deciderSpec(monitorDecider);

const M = '5f1d9c3a-3333-4b4b-9c9c-000000000001';
const P = '0b7c2a4e-1111-4a4a-8a8a-000000000001';
/** 2026-11-23 10:00 UTC plus `s` seconds. */
const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, 0) + Math.round(s * 1000)).toISOString();

const settings: MonitorSettings = {
  name: 'orders',
  url: 'https://orders.example.com/health',
  interval_seconds: 60,
  timeout_seconds: 10,
  expected_status: 200,
  enabled: true,
};
const ids = { monitor_id: M, project_id: P };

const create = (s: Partial<MonitorSettings> = {}): MonitorCommand => ({
  type: 'CreateMonitor',
  monitor_id: M,
  project_id: P,
  settings: { ...settings, ...s },
  at: at(0),
});
const created: DomainEvent = { type: 'MonitorCreated', data: { ...ids, created_at: at(0), ...settings } };
const update = (changes: MonitorUpdateInput): MonitorCommand => ({ type: 'UpdateMonitor', changes, at: at(1) });
const updated = (changes: Partial<MonitorSettings>): DomainEvent => ({
  type: 'MonitorUpdated',
  data: { ...ids, changes, updated_at: at(1) },
});
const remove: MonitorCommand = { type: 'DeleteMonitor', at: at(2) };
const deleted: DomainEvent = { type: 'MonitorDeleted', data: { ...ids, deleted_at: at(2) } };

const pass = (s: number): CheckResult => ({ checked_at: at(s), ok: true, status_code: 200, response_ms: 12 });
const fail = (s: number): CheckResult => ({ checked_at: at(s), ok: false, status_code: 503, response_ms: 30 });
const timeout = (s: number): CheckResult => ({
  checked_at: at(s),
  ok: false,
  response_ms: 10_000,
  error: 'timeout: no response within 10 s',
});
const check = (result: CheckResult): MonitorCommand => ({ type: 'RecordCheck', result });

const established = (s: number): DomainEvent => ({
  type: 'MonitorStatusEstablished',
  data: { ...ids, status: 'UP', ...pass(s) },
});
const wentDown = (s: number, x: Partial<{ name: string; url: string; expected_status: number }> = {}): DomainEvent => ({
  type: 'MonitorWentDown',
  data: {
    ...ids,
    name: settings.name,
    url: settings.url,
    expected_status: 200,
    went_down_at: at(s),
    response_ms: 30,
    error: `expected status ${x.expected_status ?? 200}, received 503`,
    status_code: 503,
    ...x,
  },
});
const cameUp = (s: number, downtime_seconds: number): DomainEvent => ({
  type: 'MonitorCameUp',
  data: {
    ...ids,
    name: settings.name,
    url: settings.url,
    came_up_at: at(s),
    status_code: 200,
    response_ms: 12,
    downtime_seconds,
  },
});

// ---- CreateMonitor ----

test('CreateMonitor on an empty stream creates the monitor with its settings', (t) => {
  spec(t).given([]).when(create()).then([created]);
});

test('CreateMonitor again is a conflict, also once the monitor is deleted (its id stays taken)', (t) => {
  spec(t).given([created]).when(create()).thenThrows({ code: 'conflict', message: 'monitor already exists' });
  spec(t).given([created, deleted]).when(create()).thenThrows({ code: 'conflict', message: 'monitor already exists' });
});

test('CreateMonitor with a timeout longer than the interval is a validation_error on timeout_seconds', (t) => {
  for (const s of [
    { interval_seconds: 10, timeout_seconds: 11 },
    { interval_seconds: 30, timeout_seconds: 120 },
  ]) {
    spec(t)
      .given([])
      .when(create(s))
      .thenThrows({
        code: 'validation_error',
        message: `invalid monitor: timeout_seconds must not exceed interval_seconds (${s.interval_seconds})`,
        details: [{ path: 'timeout_seconds', message: `must not exceed interval_seconds (${s.interval_seconds})` }],
      });
  }
});

test(
  'CreateMonitor accepts a timeout as long as the interval: ' +
    "SPEC's minimum interval (10) with its default timeout (10)",
  (t) => {
    for (const s of [
      { interval_seconds: 10, timeout_seconds: 10 },
      { interval_seconds: 10, timeout_seconds: 9 },
    ]) {
      spec(t)
        .given([])
        .when(create(s))
        .then([{ type: 'MonitorCreated', data: { ...ids, created_at: at(0), ...settings, ...s } }]);
    }
  },
);

// ---- UpdateMonitor ----

test('UpdateMonitor records only the fields that actually change', (t) => {
  spec(t)
    .given([created])
    .when(update({ name: 'orders', interval_seconds: 120, enabled: true, expected_status: 204 }))
    .then([updated({ interval_seconds: 120, expected_status: 204 })]);
});

test('UpdateMonitor with no actual change gives no event', (t) => {
  spec(t).given([created]).when(update({})).thenNothing();
  spec(t)
    .given([created])
    .when(update({ ...settings } as MonitorUpdateInput))
    .thenNothing();
  // An earlier update is part of the state: setting it again is no change either.
  spec(t)
    .given([created, updated({ name: 'checkout' })])
    .when(update({ name: 'checkout' }))
    .thenNothing();
});

test('UpdateMonitor checks the timeout against the settings as updated, not as created', (t) => {
  // Against the created interval of 60 a timeout of 90 would be refused.
  spec(t)
    .given([created, updated({ interval_seconds: 120 })])
    .when(update({ timeout_seconds: 90 }))
    .then([updated({ timeout_seconds: 90 })]);
});

test('UpdateMonitor refusals: missing, deleted, and a timeout that would exceed the interval', (t) => {
  spec(t)
    .given([])
    .when(update({ name: 'x' }))
    .thenThrows({ code: 'not_found', message: 'monitor not found' });
  spec(t)
    .given([created, deleted])
    .when(update({ name: 'x' }))
    .thenThrows({ code: 'not_found', message: 'monitor not found' });
  const cases: Array<[MonitorUpdateInput, number]> = [
    [{ interval_seconds: 10, timeout_seconds: 11 }, 10], // shrinking the interval below the new timeout
    [{ timeout_seconds: 61 }, 60], // growing the timeout past the kept interval
    [{ interval_seconds: 20, timeout_seconds: 30 }, 20],
  ];
  for (const [changes, interval] of cases) {
    spec(t)
      .given([created])
      .when(update(changes))
      .thenThrows({
        code: 'validation_error',
        details: [{ path: 'timeout_seconds', message: `must not exceed interval_seconds (${interval})` }],
      });
  }
});

test('UpdateMonitor accepts a timeout equal to the interval, from either side', (t) => {
  spec(t)
    .given([created])
    .when(update({ interval_seconds: 10 }))
    .then([updated({ interval_seconds: 10 })]);
  spec(t)
    .given([created])
    .when(update({ timeout_seconds: 60 }))
    .then([updated({ timeout_seconds: 60 })]);
});

// ---- DeleteMonitor ----

test('DeleteMonitor deletes an existing monitor; a missing or deleted one is not_found', (t) => {
  spec(t).given([created]).when(remove).then([deleted]);
  spec(t)
    .given([created, updated({ name: 'checkout' })])
    .when(remove)
    .then([deleted]);
  spec(t).given([]).when(remove).thenThrows({ code: 'not_found', message: 'monitor not found' });
  spec(t).given([created, deleted]).when(remove).thenThrows({ code: 'not_found', message: 'monitor not found' });
});

// ---- RecordCheck: SPEC 3.1 ----

test('SPEC 3.1 from PENDING: a first pass only establishes UP, a first failure is a transition to DOWN', (t) => {
  spec(t)
    .given([created])
    .when(check(pass(10)))
    .then([established(10)]);
  spec(t)
    .given([created])
    .when(check(fail(10)))
    .then([wentDown(10)]);
});

test('SPEC 3.1 from UP and DOWN: only a change of state is a transition', (t) => {
  const up = [created, established(10)];
  const down = [created, established(10), wentDown(20)];
  const rows: Array<[string, DomainEvent[], CheckResult, DomainEvent[]]> = [
    ['UP + pass', up, pass(30), []],
    ['UP + fail', up, fail(30), [wentDown(30)]],
    ['DOWN + fail', down, fail(30), []],
    ['DOWN + pass', down, pass(30), [cameUp(30, 10)]],
  ];
  for (const [, given, result, expected] of rows) spec(t).given(given).when(check(result)).then(expected);
});

test('a failure without a response goes down with the error text and no status_code', (t) => {
  spec(t)
    .given([created, established(10)])
    .when(check(timeout(20)))
    .then([
      {
        type: 'MonitorWentDown',
        data: {
          ...ids,
          name: 'orders',
          url: settings.url,
          expected_status: 200,
          went_down_at: at(20),
          response_ms: 10_000,
          error: 'timeout: no response within 10 s',
        },
      },
    ]);
});

test('a monitor that went down at its first check comes up with the downtime since that check', (t) => {
  spec(t)
    .given([created, wentDown(10)])
    .when(check(pass(70)))
    .then([cameUp(70, 60)]);
});

test('downtime_seconds counts from going down to coming up, rounded to whole seconds', (t) => {
  const down = [created, established(0), wentDown(20)];
  const rows: Array<[number, number]> = [
    [20, 0],
    [21, 1],
    [95, 75],
    [105.499, 85],
    [105.5, 86],
    [20 + 86_400, 86_400],
  ];
  for (const [s, downtime] of rows)
    spec(t)
      .given(down)
      .when(check(pass(s)))
      .then([cameUp(s, downtime)]);
});

test('transitions carry the settings as updated: name, url and the expected status', (t) => {
  const changes = { name: 'checkout', url: 'https://checkout.example.com/', expected_status: 204 };
  spec(t)
    .given([created, established(10), updated(changes)])
    .when(check(fail(20)))
    .then([wentDown(20, changes)]);
});

test('a check of a deleted or never created monitor records no transition', (t) => {
  spec(t)
    .given([created, deleted])
    .when(check(fail(10)))
    .thenNothing();
  spec(t)
    .given([created, established(5), wentDown(8), deleted])
    .when(check(pass(10)))
    .thenNothing();
  spec(t)
    .given([])
    .when(check(fail(10)))
    .thenNothing();
});

// A check that started before the current status began (a slow check finishing after a later
// one) says nothing about the current state: a pass from 10:00:15 must not "come up" before the
// monitor went down at 10:00:20.
test('a check older than the current status changes nothing', (t) => {
  spec(t)
    .given([created, established(10), wentDown(20)])
    .when(check(pass(15)))
    .thenNothing();
});
