import test from 'ava';
import got from 'got';
import { EGRESS_REFUSED, egressPolicy, refusalOf, type Resolver } from '../../src/checks/egress.ts';
import { runCheck } from '../../src/checks/probe.ts';
import { parseAddressList, type EgressRules } from '../../src/domain/egress-rules.ts';
import { startTarget } from '../helpers/target.ts';

/** The policy's agents on loopback: a target on 127.0.0.1 counts the TCP connections it
 *  accepts, and every refusal must leave that count where it was. */

const rules = (deny: string, allow = ''): EgressRules => {
  const allowed = allow === '' ? { cidrs: [], hosts: [] } : parseAddressList(allow, { hosts: true }).list;
  return { deny: parseAddressList(deny, { hosts: false }).list.cidrs, allow: allowed.cidrs, allowHosts: allowed.hosts };
};
const LOOPBACK = '127.0.0.0/8,::1/128';
const BLOCKED = 'blocked by egress policy (127.0.0.1 is in 127.0.0.0/8)';
/** A resolver that answers from a table, one answer per call for a name with several. */
const resolver = (table: Record<string, string[][]>): Resolver => {
  const calls = new Map<string, number>();
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = calls.get(hostname) ?? 0;
    calls.set(hostname, n + 1);
    return answers[Math.min(n, answers.length - 1)]!.map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
};
const check = (url: string, egress: ReturnType<typeof egressPolicy>) =>
  runCheck({ url, timeout_seconds: 2, expected_status: 200 }, egress);

test(
  'a host name that resolves to a denied address is refused in the lookup: ' + 'a failed check, no connection',
  async (t) => {
    const target = await startTarget(200);
    t.teardown(() => target.close());
    const port = new URL(target.url).port;
    const result = await check(`http://localhost:${port}/health`, egressPolicy(rules(LOOPBACK)));
    t.false(result.ok);
    // localhost may resolve to ::1 as well, and whichever denied address comes first is named.
    t.regex(result.error ?? '', /^blocked by egress policy \((127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1)\)$/);
    t.is(result.status_code, undefined);
    t.is(target.connections, 0);
    // The same target under the default rules: loopback is allowed.
    t.like(await check(`http://localhost:${port}/health`, egressPolicy(rules('169.254.0.0/16'))), {
      ok: true,
      status_code: 200,
    });
    t.is(target.connections, 1);
  },
);

test('a literal address is refused before connecting, in every spelling: IPv4, IPv4-mapped IPv6, https', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const egress = egressPolicy(rules('127.0.0.0/8'));
  for (const url of [
    `http://127.0.0.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://2130706433:${port}/`,
    `https://127.0.0.1:${port}/`,
    `https://[::ffff:127.0.0.1]:${port}/`,
  ]) {
    t.like(await check(url, egress), { ok: false, error: BLOCKED }, url);
  }
  t.regex(
    (await check(`https://localhost:${port}/`, egressPolicy(rules(LOOPBACK)))).error ?? '',
    /^blocked by egress policy/,
    "https names go through the policy's lookup too",
  );
  t.is(target.connections, 0);
});

test('every address a name resolves to is judged: one denied among allowed ones refuses the name', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const egress = egressPolicy(rules('127.0.0.0/8', '127.0.0.1'), {
    resolve: resolver({ 'mixed.test': [['127.0.0.1', '127.0.0.9']], 'fine.test': [['127.0.0.1']] }),
  });
  t.like(await check(`http://mixed.test:${port}/health`, egress), {
    ok: false,
    error: 'blocked by egress policy (127.0.0.9 is in 127.0.0.0/8)',
  });
  t.is(target.connections, 0);
  t.like(await check(`http://fine.test:${port}/health`, egress), { ok: true, status_code: 200 });
  t.is(target.connections, 1);
  t.like(await check(`http://unknown.test:${port}/health`, egress), {
    ok: false,
    error: 'DNS lookup failed for unknown.test',
  });
});

test('a name is judged on what it resolves to at each connection (DNS rebinding)', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const egress = egressPolicy(rules('127.0.0.0/8', '127.0.0.1'), {
    resolve: resolver({ 'rebind.test': [['127.0.0.1'], ['127.0.0.5']] }),
  });
  t.like(await check(`http://rebind.test:${port}/health`, egress), { ok: true, status_code: 200 });
  t.like(await check(`http://rebind.test:${port}/health`, egress), {
    ok: false,
    error: 'blocked by egress policy (127.0.0.5 is in 127.0.0.0/8)',
  });
  t.is(target.connections, 1);
});

test('a redirect got follows goes through the policy too', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const egress = egressPolicy(rules('127.0.0.0/8', '127.0.0.1'), {
    resolve: resolver({ 'inside.test': [['127.0.0.2']] }),
  });
  const error = await t.throwsAsync(
    got(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(`http://inside.test:${port}/`)}`, {
      agent: egress.agent,
      followRedirect: true,
      retry: { limit: 0 },
    }),
  );
  t.is((error as { code?: string }).code, EGRESS_REFUSED);
  t.is(refusalOf(error), 'blocked by egress policy (127.0.0.2 is in 127.0.0.0/8)');
  t.is(target.hits, 1, 'the first request was answered, the redirect refused');
});

test('allow overrides deny: by address, and by host name whatever the name resolves to', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  t.like(await check(`http://127.0.0.1:${port}/health`, egressPolicy(rules(LOOPBACK, '127.0.0.1'))), {
    ok: true,
    status_code: 200,
  });
  t.like(await check(`http://127.0.0.1:${port}/health`, egressPolicy(rules(LOOPBACK, '::ffff:127.0.0.0/120'))), {
    ok: true,
    status_code: 200,
  });
  t.like(await check(`http://localhost:${port}/health`, egressPolicy(rules(LOOPBACK, 'LOCALHOST'))), {
    ok: true,
    status_code: 200,
  });
  // A name on the allow list does not allow the addresses it resolves to for other names or literals.
  t.like(await check(`http://127.0.0.1:${port}/health`, egressPolicy(rules(LOOPBACK, 'localhost'))), {
    ok: false,
    error: BLOCKED,
  });
  t.is(target.connections, 3);
});
