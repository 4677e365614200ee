import test from 'ava';
import { egressPolicy } from '../../src/checks/egress.ts';
import { probe } from '../../src/checks/probe.ts';
import { resolverHost } from '../../src/checks/dns-probe.ts';
import { parseAddressList, type EgressRules } from '../../src/domain/egress-rules.ts';
import type { MonitorSettings } from '../../src/domain/monitor.ts';
import { startDnsServer } from '../helpers/dns-server.ts';

const rules = (deny: string): EgressRules => ({
  deny: parseAddressList(deny, { hosts: false }).list.cidrs,
  allow: [],
  allowHosts: [],
});
const egress = egressPolicy(rules('169.254.0.0/16'));

const dnsMonitor = (resolver: string, extra: Partial<MonitorSettings>): MonitorSettings => ({
  name: 'dns',
  url: '',
  interval_seconds: 60,
  timeout_seconds: 2,
  expected_status: 200,
  enabled: true,
  type: 'dns',
  resolver,
  ...extra,
});

test('A and TXT records from a resolver on 127.0.0.1, asserted with dns_records contains', async (t) => {
  const server = await startDnsServer({
    'app.test': { A: ['10.1.2.3', '10.1.2.4'], TXT: [['v=spf1 ', 'include:mail.test -all'], ['hello']] },
  });
  t.teardown(() => server.close());
  const a = await probe(
    dnsMonitor(server.address, {
      hostname: 'app.test',
      assertions: [{ source: 'dns_records', op: 'contains', value: '10.1.2.4' }],
    }),
    egress,
  );
  t.like(a.result, { ok: true, dns_records: ['10.1.2.3', '10.1.2.4'] });
  t.is(a.result.error, undefined);
  t.deepEqual(a.result.assertions?.[0], {
    source: 'dns_records',
    op: 'contains',
    value: '10.1.2.4',
    passed: true,
    received: '["10.1.2.3","10.1.2.4"]',
  });
  t.false(a.refused);

  const txt = await probe(
    dnsMonitor(server.address, {
      hostname: 'app.test',
      record_type: 'TXT',
      assertions: [
        { source: 'dns_records', op: 'contains', value: 'include:mail.test' },
        { source: 'dns_records', op: 'not_contains', value: 'google-site-verification' },
      ],
    }),
    egress,
  );
  t.like(txt.result, { ok: true, dns_records: ['v=spf1 include:mail.test -all', 'hello'] });

  const failing = await probe(
    dnsMonitor(server.address, {
      hostname: 'app.test',
      assertions: [{ source: 'dns_records', op: 'equals', value: '10.9.9.9' }],
    }),
    egress,
  );
  t.like(failing.result, { ok: false, error: 'dns_records equals "10.9.9.9": got ["10.1.2.3","10.1.2.4"]' });
  t.deepEqual(server.questions, ['app.test A', 'app.test TXT', 'app.test A']);
});

test('MX, CNAME, NS and AAAA records as texts', async (t) => {
  const server = await startDnsServer({
    'mail.test': {
      MX: [
        [10, 'mx1.mail.test'],
        [20, 'mx2.mail.test'],
      ],
      NS: ['ns1.test'],
      AAAA: ['2001:db8::1'],
    },
    'www.test': { CNAME: ['app.test'] },
  });
  t.teardown(() => server.close());
  const records = async (hostname: string, record_type: MonitorSettings['record_type']) =>
    (await probe(dnsMonitor(server.address, { hostname, record_type }), egress)).result.dns_records;
  t.deepEqual(await records('mail.test', 'MX'), ['10 mx1.mail.test', '20 mx2.mail.test']);
  t.deepEqual(await records('mail.test', 'NS'), ['ns1.test']);
  t.deepEqual(await records('mail.test', 'AAAA'), ['2001:db8::1']);
  t.deepEqual(await records('www.test', 'CNAME'), ['app.test']);
});

test('no records, and a name that does not exist, fail with a clear error', async (t) => {
  const server = await startDnsServer({ 'app.test': { A: ['10.1.2.3'] } });
  t.teardown(() => server.close());
  t.like((await probe(dnsMonitor(server.address, { hostname: 'app.test', record_type: 'MX' }), egress)).result, {
    ok: false,
    error: 'no MX records for app.test',
  });
  t.like((await probe(dnsMonitor(server.address, { hostname: 'gone.test' }), egress)).result, {
    ok: false,
    error: 'gone.test does not exist (NXDOMAIN)',
  });
});

test('a resolver that does not answer: a timeout within the monitor timeout', async (t) => {
  const server = await startDnsServer({});
  t.teardown(() => server.close());
  server.silent.add('slow.test');
  const { result } = await probe(dnsMonitor(server.address, { hostname: 'slow.test', timeout_seconds: 1 }), egress);
  t.like(result, { ok: false, error: 'timeout: no DNS answer within 1 s' });
  t.is(server.questions.length, 1, 'asked once, no retries');
});

test("a resolver the egress policy denies is never asked: a failed check with the policy's text", async (t) => {
  const server = await startDnsServer({ 'app.test': { A: ['10.1.2.3'] } });
  t.teardown(() => server.close());
  const denied = egressPolicy(rules('127.0.0.0/8'));
  const probed = await probe(dnsMonitor(server.address, { hostname: 'app.test' }), denied);
  t.true(probed.refused);
  t.like(probed.result, { ok: false, error: 'blocked by egress policy (127.0.0.1 is in 127.0.0.0/8)' });
  t.like((await probe(dnsMonitor('169.254.169.254', { hostname: 'app.test' }), egress)).result, {
    ok: false,
    error: 'blocked by egress policy (169.254.169.254 is in 169.254.0.0/16)',
  });
  t.like((await probe(dnsMonitor('[::ffff:169.254.169.254]:53', { hostname: 'app.test' }), egress)).result, {
    error: 'blocked by egress policy (169.254.169.254 is in 169.254.0.0/16)',
  });
  t.deepEqual(server.questions, []);
});

test('the address of each spelling of a resolver', (t) => {
  t.is(resolverHost('1.1.1.1'), '1.1.1.1');
  t.is(resolverHost('127.0.0.1:5353'), '127.0.0.1');
  t.is(resolverHost('[::1]:53'), '::1');
  t.is(resolverHost('::1'), '::1');
  t.is(resolverHost('2001:db8::53'), '2001:db8::53');
});
