import test from 'ava';
import { egressPolicy } from '../../src/checks/egress.ts';
import { runCheck } from '../../src/checks/probe.ts';
import { loadConfig } from '../../src/config.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { freePort } from '../helpers/process.ts';
import { startTarget } from '../helpers/target.ts';

test('the expected status passes; another status fails with the status code and the error text recorded', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const up = await runCheck({ url: target.url, timeout_seconds: 2, expected_status: 200 }, defaultEgress);
  t.like(up, { ok: true, status_code: 200 });
  t.is(up.error, undefined);
  t.true(up.response_ms >= 0 && up.response_ms < 2000);
  t.false(Number.isNaN(Date.parse(up.checked_at)));

  target.status = 503;
  const down = await runCheck({ url: target.url, timeout_seconds: 2, expected_status: 200 }, defaultEgress);
  t.like(down, { ok: false, status_code: 503, error: 'expected status 200, received 503' });
  t.is(target.hits, 2, 'one request per check, no retries');
});

test('a slow target times out: no status code, an error text, about the timeout in ms', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  target.delayMs = 3000;
  const result = await runCheck({ url: target.url, timeout_seconds: 1, expected_status: 200 }, defaultEgress);
  t.false(result.ok);
  t.is(result.status_code, undefined);
  t.regex(result.error ?? '', /timeout: no response within 1 s/);
  t.true(result.response_ms >= 900 && result.response_ms < 2500, String(result.response_ms));
  t.is(target.hits, 1);
});

test('a closed port is a failure with "connection refused"', async (t) => {
  const port = await freePort();
  const result = await runCheck(
    { url: `http://127.0.0.1:${port}/`, timeout_seconds: 2, expected_status: 200 },
    defaultEgress,
  );
  t.false(result.ok);
  t.regex(result.error ?? '', /connection refused by 127\.0\.0\.1:\d+/);
});

test('an unknown host is a DNS failure', async (t) => {
  // A resolver that knows no name answers as the system's does for one that does not exist.
  const asked: string[] = [];
  const egress = egressPolicy(loadConfig({}).egress, {
    resolve: async (hostname) => {
      asked.push(hostname);
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    },
  });
  const result = await runCheck(
    { url: 'http://watchlog-no-such-host.invalid/', timeout_seconds: 2, expected_status: 200 },
    egress,
  );
  t.deepEqual(asked, ['watchlog-no-such-host.invalid']);
  t.false(result.ok);
  t.regex(result.error ?? '', /DNS lookup failed for watchlog-no-such-host\.invalid/);
});

test('redirects are not followed: a 301 is the status, and passes when expected', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const url = target.url.replace('/health', '/redirect');
  t.like(await runCheck({ url, timeout_seconds: 2, expected_status: 200 }, defaultEgress), {
    ok: false,
    status_code: 301,
    error: 'expected status 200, received 301',
  });
  t.like(await runCheck({ url, timeout_seconds: 2, expected_status: 301 }, defaultEgress), {
    ok: true,
    status_code: 301,
  });
  t.is(target.hits, 2);
});
