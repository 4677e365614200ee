import test from 'ava';
import {
  decideSettings,
  evolveMonitor,
  initialMonitor,
  monitorDecider,
  type CheckResult,
  type MonitorSettings,
  type MonitorState,
} from '../../src/domain/monitor.ts';
import { missedBeat } from '../../src/domain/heartbeat.ts';
import type { DomainError } from '../../src/domain/errors.ts';
import { SECRET_MASK, maskedOptions } from '../../src/domain/monitor-options.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { changeAccessEvent } from '../../src/domain/self-audit.ts';

const T0 = Date.UTC(2026, 11, 6, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const M = '5f1d9c3a-3333-4b4b-9c9c-000000000001';

const monitorWith = (options: Partial<MonitorSettings>): MonitorState =>
  evolveMonitor(initialMonitor, {
    type: 'MonitorCreated',
    data: {
      monitor_id: M,
      project_id: 'p1',
      created_at: at(0),
      name: 'orders',
      url: 'https://orders.example.com/health',
      interval_seconds: 60,
      timeout_seconds: 10,
      expected_status: 200,
      enabled: true,
      ...options,
    },
  });

const pass = (s: number, extra: Partial<CheckResult> = {}): CheckResult => ({
  checked_at: at(s),
  ok: true,
  status_code: 200,
  response_ms: 10,
  ...extra,
});
const fail = (s: number): CheckResult => ({
  checked_at: at(s),
  ok: false,
  status_code: 503,
  response_ms: 10,
  error: 'expected status 200, received 503',
});

/** Feeds checks through the decider, one RecordCheck each: the events of each, by type. */
const run = (state: MonitorState, checks: CheckResult[]) => {
  const out: string[][] = [];
  let s = state;
  for (const result of checks) {
    const events = monitorDecider.decide({ type: 'RecordCheck', result }, s) as DomainEvent[];
    out.push(
      events.map((e) => (e.type === 'MonitorConfirming' ? `Confirming ${e.data.toward} ${e.data.streak}` : e.type)),
    );
    for (const e of events) s = monitorDecider.evolve(s, e);
  }
  return { out, state: s };
};

test('down_after 3: DOWN at the third failure in a row, not before; a pass between starts over', (t) => {
  const m = monitorWith({ down_after: 3 });
  const { out, state } = run(m, [pass(0), fail(10), fail(20), pass(30), fail(40), fail(50), fail(60), fail(70)]);
  t.deepEqual(out, [
    ['MonitorStatusEstablished'],
    ['Confirming DOWN 1'],
    ['Confirming DOWN 2'],
    ['Confirming DOWN 0'],
    ['Confirming DOWN 1'],
    ['Confirming DOWN 2'],
    ['MonitorWentDown'],
    [],
  ]);
  t.is(state.status, 'DOWN');
  t.is(state.statusSince, at(60));
});

test('up_after 2: UP at the second pass in a row; the DOWN carries how many checks confirmed it', (t) => {
  const m = monitorWith({ down_after: 2, up_after: 2 });
  const { out } = run(m, [fail(0), fail(10), pass(20), fail(30), pass(40), pass(50), pass(60)]);
  t.deepEqual(out, [
    ['Confirming DOWN 1'],
    ['MonitorWentDown'],
    ['Confirming UP 1'],
    ['Confirming UP 0'],
    ['Confirming UP 1'],
    ['MonitorCameUp'],
    [],
  ]);
  const down = monitorDecider.decide({ type: 'RecordCheck', result: fail(10) }, run(m, [fail(0)]).state)[0];
  t.like(down?.data, { failed_checks: 2, went_down_at: at(10) });
});

test('SPEC defaults: one failure is DOWN, one pass is UP, and no confirming events ever', (t) => {
  const { out } = run(monitorWith({}), [pass(0), fail(10), fail(20), pass(30), pass(40)]);
  t.deepEqual(out, [['MonitorStatusEstablished'], ['MonitorWentDown'], [], ['MonitorCameUp'], []]);
});

const cert = (daysLeft: number, validTo = new Date(T0 + daysLeft * 86_400_000 + 3_600_000).toISOString()) => ({
  valid_from: at(0),
  valid_to: validTo,
  issuer: 'CN=test CA',
  subject: 'CN=orders.example.com',
  names: ['orders.example.com'],
});

test('certificate warnings: once per threshold crossed, the nearest when several are; a renewal starts over', (t) => {
  const m = monitorWith({ cert_expiry_warn_days: [14, 7, 1] });
  const expiry = cert(20).valid_to;
  const day = (d: number) => 86_400 * d;
  const checks = [
    pass(0, { certificate: cert(20, expiry) }), // 20 days left: nothing
    pass(day(6), { certificate: cert(20, expiry) }), // 14 left: the 14 threshold
    pass(day(6) + 60, { certificate: cert(20, expiry) }), // again 14: nothing
    pass(day(14), { certificate: cert(20, expiry) }), // 6 left: 7
    pass(day(19), { certificate: cert(20, expiry) }), // 1 left: 1
    pass(day(19) + 60, { certificate: cert(20, expiry) }), // nothing more
  ];
  const { out, state } = run(m, checks);
  t.deepEqual(out, [
    ['MonitorStatusEstablished'],
    ['CertificateExpiring'],
    [],
    ['CertificateExpiring'],
    ['CertificateExpiring'],
    [],
  ]);
  t.deepEqual(state.certWarning, { validTo: expiry, threshold: 1 }, 'the last warning was at 1 day');
  const renewed = new Date(T0 + day(19 + 90) * 1000).toISOString();
  const after = run(state, [pass(day(19) + 120, { certificate: cert(90, renewed) })]);
  t.deepEqual(after.out, [[]], 'a renewed certificate far from expiry: nothing');
  // First seen at 5 days left: one warning, at 7 (not 14 and 7).
  const late = monitorDecider.decide(
    { type: 'RecordCheck', result: pass(0, { certificate: cert(5) }) },
    monitorWith({ cert_expiry_warn_days: [14, 7, 1] }),
  );
  t.like(late.find((e) => e.type === 'CertificateExpiring')?.data, { threshold_days: 7, days_left: 5 });
  const custom = monitorDecider.decide(
    { type: 'RecordCheck', result: pass(0, { certificate: cert(25) }) },
    monitorWith({ cert_expiry_warn_days: [30] }),
  );
  t.like(custom.find((e) => e.type === 'CertificateExpiring')?.data, { threshold_days: 30 });
  const spec = monitorDecider.decide(
    { type: 'RecordCheck', result: pass(0, { certificate: cert(5) }) },
    monitorWith({}),
  );
  t.deepEqual(
    spec.map((e) => e.type),
    ['MonitorStatusEstablished'],
    "SPEC's monitor notifies of transitions only",
  );
  t.is(decideSettings({ name: 'a', url: 'https://a.example.com/' }, M).cert_expiry_warn_days, undefined);
  t.deepEqual(
    decideSettings({ name: 'a', url: 'https://a.example.com/', type: 'http' }, M).cert_expiry_warn_days,
    [14, 7, 1],
  );
});

test('heartbeats: a miss once interval + grace have passed without a beat, then one miss per interval', (t) => {
  const hb = monitorWith({ type: 'heartbeat', url: `heartbeat:${M}`, grace_seconds: 30 });
  t.is(missedBeat(hb, null, new Date(T0 + 89_000)), null, 'within 60 s + 30 s of creation');
  t.like(missedBeat(hb, null, new Date(T0 + 90_000)), {
    ok: false,
    heartbeat: 'missed',
    error: 'no heartbeat within 60 s + 30 s grace',
  });
  const beat = { checked_at: at(100), heartbeat: 'beat' as const };
  t.is(missedBeat(hb, beat, new Date(T0 + 189_000)), null);
  t.truthy(missedBeat(hb, beat, new Date(T0 + 190_000)));
  const miss = { checked_at: at(190), heartbeat: 'missed' as const };
  t.is(missedBeat(hb, miss, new Date(T0 + 249_000)), null, 'the next miss one interval later');
  t.truthy(missedBeat(hb, miss, new Date(T0 + 250_000)));
  const paused = evolveMonitor(hb, {
    type: 'MonitorUpdated',
    data: { monitor_id: M, project_id: 'p1', changes: { enabled: false }, updated_at: at(300) },
  });
  t.is(missedBeat(paused, miss, new Date(T0 + 999_000)), null, 'paused: nothing');
  const resumed = evolveMonitor(paused, {
    type: 'MonitorUpdated',
    data: { monitor_id: M, project_id: 'p1', changes: { enabled: true }, updated_at: at(1000) },
  });
  t.is(missedBeat(resumed, miss, new Date(T0 + 1089_000)), null, 'enabled again: waiting starts over');
  t.truthy(missedBeat(resumed, miss, new Date(T0 + 1090_000)));
});

const settingsError = (input: Parameters<typeof decideSettings>[0]) => {
  try {
    decideSettings(input, M);
    return null;
  } catch (error) {
    return (error as DomainError).details.map((d) => `${d.path}: ${d.message}`);
  }
};

test('each kind takes its own settings: a field of another kind, a missing target, a bad assertion are 400s', (t) => {
  t.is(settingsError({ name: 'a', url: 'https://a.example.com/' }), null);
  t.deepEqual(settingsError({ name: 'a', url: 'tcp://db.example.com:5432', type: 'tcp', method: 'POST' }), [
    'method: only for http monitors; this one is tcp',
  ]);
  t.deepEqual(settingsError({ name: 'a', url: 'tcp://db.example.com', type: 'tcp' }), ['url: must be tcp://host:port']);
  t.deepEqual(settingsError({ name: 'a', type: 'dns' }), ['hostname: required for dns monitors']);
  t.deepEqual(settingsError({ name: 'a', type: 'heartbeat', url: 'https://a.example.com/' }), [
    'url: not used by heartbeat monitors',
  ]);
  t.deepEqual(
    settingsError({
      name: 'a',
      url: 'https://a.example.com/',
      assertions: [
        { source: 'json', op: 'equals', value: 'ok' },
        { source: 'dns_records', op: 'contains', value: '1.2.3.4' },
        { source: 'response_time', op: 'lt', value: 'fast' },
        { source: 'body', op: 'matches', value: '(' },
      ],
    })?.map((s) => s.split(':')[0]),
    ['assertions.0.path', 'assertions.1.source', 'assertions.2.value', 'assertions.3.value'],
  );
  t.deepEqual(settingsError({ name: 'a', url: 'https://a.example.com/', body: '{}' }), [
    'body: not sent with GET: choose POST, PUT, PATCH, DELETE or OPTIONS',
  ]);
  const dns = decideSettings({ name: 'a', type: 'dns', hostname: 'example.com', record_type: 'TXT' }, M);
  t.is(dns.url, 'dns:///example.com?type=TXT', 'a dns monitor names what it resolves as its url');
});

test('secrets are answered masked, and a change that sends the mask back keeps them', (t) => {
  const m = monitorWith({ headers: { 'X-Token': 'abc123' }, auth: { type: 'bearer', token: 'tok-1' } });
  t.deepEqual(maskedOptions(m.settings).headers, { 'X-Token': SECRET_MASK });
  t.deepEqual(maskedOptions(m.settings).auth, { type: 'bearer', token: SECRET_MASK });
  const keep = monitorDecider.decide(
    {
      type: 'UpdateMonitor',
      changes: { headers: { 'X-Token': SECRET_MASK, 'X-Other': 'new' }, auth: { type: 'bearer', token: SECRET_MASK } },
      at: at(5),
    },
    m,
  );
  t.deepEqual(keep[0]?.data, {
    monitor_id: M,
    project_id: 'p1',
    changes: { headers: { 'X-Token': 'abc123', 'X-Other': 'new' } },
    updated_at: at(5),
  });
  const error = t.throws(() =>
    monitorDecider.decide({ type: 'UpdateMonitor', changes: { headers: { 'X-New': SECRET_MASK } }, at: at(5) }, m),
  ) as DomainError;
  t.deepEqual(error.details, [{ path: 'headers.X-New', message: 'has no stored value to keep: give the value' }]);
  t.throws(() => monitorDecider.decide({ type: 'UpdateMonitor', changes: { type: 'tcp' }, at: at(5) }, m), {
    message: /type cannot change/,
  });
  const cleared = monitorDecider.decide({ type: 'UpdateMonitor', changes: { auth: null }, at: at(6) }, m);
  t.like(cleared[0]?.data, { changes: { auth: null } });
});

test("the service's own audit trail names a monitor's options but never their secrets", (t) => {
  const metadata = { recorded_at: at(0), actor: 'user:u1', correlation_id: 'c1', schema_version: 1 };
  const createdEvent = {
    type: 'MonitorCreated' as const,
    data: {
      monitor_id: M,
      project_id: 'p1',
      created_at: at(0),
      name: 'orders',
      url: 'https://orders.example.com/',
      interval_seconds: 60,
      timeout_seconds: 10,
      expected_status: 200,
      enabled: true,
      headers: { 'X-Token': 'abc123' },
      auth: { type: 'bearer' as const, token: 'tok-1' },
    },
  };
  const updatedEvent = {
    type: 'MonitorUpdated' as const,
    data: { monitor_id: M, project_id: 'p1', changes: { headers: { 'X-Token': 'def456' } }, updated_at: at(1) },
  };
  const created = changeAccessEvent('e1', createdEvent, metadata);
  const updated = changeAccessEvent('e2', updatedEvent, metadata);
  t.like(created?.request_body, { options: ['headers', 'auth'] });
  t.false(JSON.stringify(created).includes('abc123') || JSON.stringify(created).includes('tok-1'));
  t.like(updated?.request_body, { changes: { headers: { 'X-Token': SECRET_MASK } } });
  t.false(JSON.stringify(updated).includes('def456'));
});
