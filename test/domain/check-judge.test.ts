import test from 'ava';
import { judge, type JudgedSettings, type Observation } from '../../src/domain/check-judge.ts';

const at = '2026-12-01T00:00:00.000Z';
const spec: JudgedSettings = { expected_status: 200 };
const seen = (o: Partial<Observation>): Observation => ({ checked_at: at, response_ms: 12, ...o });

test("a SPEC monitor (no options) gets SPEC's result exactly, key for key", (t) => {
  const up = judge(spec, seen({ status_code: 200, headers: { a: 'b' } }));
  t.is(JSON.stringify(up), JSON.stringify({ checked_at: at, ok: true, status_code: 200, response_ms: 12 }));
  const down = judge(spec, seen({ status_code: 503 }));
  t.is(
    JSON.stringify(down),
    JSON.stringify({
      checked_at: at,
      ok: false,
      status_code: 503,
      response_ms: 12,
      error: 'expected status 200, received 503',
    }),
  );
  const failed = judge(spec, seen({ error: 'timeout: no response within 1 s' }));
  t.is(
    JSON.stringify(failed),
    JSON.stringify({ checked_at: at, ok: false, response_ms: 12, error: 'timeout: no response within 1 s' }),
  );
});

test('accepted_statuses replace expected_status, with their own failure text', (t) => {
  const s: JudgedSettings = { expected_status: 200, accepted_statuses: ['200-299', '301'] };
  t.true(judge(s, seen({ status_code: 204 })).ok);
  t.true(judge(s, seen({ status_code: 301 })).ok);
  t.like(judge(s, seen({ status_code: 302 })), { ok: false, error: 'expected status in 200-299, 301, received 302' });
  t.like(judge(s, seen({ status_code: 503 })), { ok: false, error: 'expected status in 200-299, 301, received 503' });
});

test('every assertion is evaluated, also after a failed status; the texts join, the status first', (t) => {
  const s: JudgedSettings = {
    expected_status: 200,
    assertions: [
      { source: 'json', path: '$.status', op: 'equals', value: 'ok' },
      { source: 'response_time', op: 'lt', value: 1000 },
      { source: 'header', path: 'x-version', op: 'exists' },
    ],
  };
  const result = judge(s, seen({ status_code: 503, headers: {}, body: '{"status":"degraded"}' }));
  t.false(result.ok);
  t.is(
    result.error,
    [
      'expected status 200, received 503',
      'json $.status equals "ok": got "degraded"',
      'header x-version exists: got nothing',
    ].join('; '),
  );
  t.deepEqual(
    result.assertions?.map((a) => a.passed),
    [false, true, false],
  );
  const passing = judge(s, seen({ status_code: 200, headers: { 'x-version': '7' }, body: '{"status":"ok"}' }));
  t.like(passing, { ok: true, status_code: 200 });
  t.is(passing.error, undefined);
  t.is(passing.assertions?.length, 3);
});

test('an observation with an error fails with it, and no assertion is evaluated', (t) => {
  const s: JudgedSettings = {
    expected_status: 200,
    assertions: [{ source: 'response_time', op: 'lt', value: 10_000 }],
  };
  const result = judge(s, seen({ error: 'connection refused by 127.0.0.1:1' }));
  t.deepEqual(result, { checked_at: at, ok: false, response_ms: 12, error: 'connection refused by 127.0.0.1:1' });
});

test('tcp and dns: no status; the certificate and the records are kept; assertions decide', (t) => {
  const certificate = {
    valid_from: '2026-11-01T00:00:00.000Z',
    valid_to: '2026-12-04T00:00:00.000Z',
    issuer: 'CN=ca',
    subject: 'CN=db',
    names: ['db'],
  };
  const tcp: JudgedSettings = {
    type: 'tcp',
    expected_status: 200,
    assertions: [{ source: 'certificate_expiry_days', op: 'gte', value: 7 }],
  };
  t.deepEqual(judge(tcp, seen({ certificate })), {
    checked_at: at,
    ok: false,
    response_ms: 12,
    error: 'certificate_expiry_days gte 7: got 3',
    assertions: [{ source: 'certificate_expiry_days', op: 'gte', value: 7, passed: false, received: '3' }],
    certificate,
  });
  t.deepEqual(judge({ type: 'tcp', expected_status: 200 }, seen({})), { checked_at: at, ok: true, response_ms: 12 });
  const dns: JudgedSettings = { type: 'dns', expected_status: 200 };
  t.deepEqual(judge(dns, seen({ dns_records: ['1.2.3.4'] })), {
    checked_at: at,
    ok: true,
    response_ms: 12,
    dns_records: ['1.2.3.4'],
  });
});

test('an https check of a SPEC monitor keeps its certificate (for the expiry warnings)', (t) => {
  const certificate = { valid_from: at, valid_to: at, issuer: 'CN=x', subject: 'CN=x', names: [] };
  t.deepEqual(judge(spec, seen({ status_code: 200, certificate })), {
    checked_at: at,
    ok: true,
    status_code: 200,
    response_ms: 12,
    certificate,
  });
});
