import test from 'ava';
import net from 'node:net';
import tls from 'node:tls';
import { egressPolicy, type Resolver } from '../../src/checks/egress.ts';
import { probe } from '../../src/checks/probe.ts';
import type { MonitorSettings } from '../../src/domain/monitor.ts';
import { daysLeft } from '../../src/domain/monitor-certificates.ts';
import { parseAddressList, type EgressRules } from '../../src/domain/egress-rules.ts';
import { certificateFor, closedPort, listen } from '../helpers/probe-servers.ts';

const rules = (deny: string): EgressRules => ({
  deny: parseAddressList(deny, { hosts: false }).list.cidrs,
  allow: [],
  allowHosts: [],
});
const resolve: Resolver = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
};
const egress = egressPolicy(rules('169.254.0.0/16'), { resolve });

const tcpMonitor = (url: string, extra: Partial<MonitorSettings> = {}): MonitorSettings => ({
  name: 'tcp',
  url,
  interval_seconds: 60,
  timeout_seconds: 2,
  expected_status: 200,
  enabled: true,
  type: 'tcp',
  ...extra,
});

test('a listener is up; after it closes, the port refuses', async (t) => {
  const server = await listen(net.createServer((s) => s.end()));
  const url = `tcp://127.0.0.1:${server.port}`;
  const up = await probe(tcpMonitor(url, { assertions: [{ source: 'response_time', op: 'lt', value: 2000 }] }), egress);
  t.like(up.result, { ok: true, assertions: [{ source: 'response_time', op: 'lt', passed: true }] });
  t.is(up.result.status_code, undefined);
  t.is(up.result.certificate, undefined);
  t.is(server.connections, 1);
  const byName = await probe(tcpMonitor(`tcp://localhost:${server.port}`), egress);
  t.like(byName.result, { ok: true });
  await server.close();
  const down = await probe(tcpMonitor(url), egress);
  t.like(down.result, { ok: false, error: `connection refused by 127.0.0.1:${server.port}` });
  t.false(down.refused);
});

test('a closed port and an unknown name', async (t) => {
  const port = await closedPort();
  t.like((await probe(tcpMonitor(`tcp://127.0.0.1:${port}`), egress)).result, {
    ok: false,
    error: `connection refused by 127.0.0.1:${port}`,
  });
  t.like((await probe(tcpMonitor('tcp://db.invalid:5432'), egress)).result, {
    ok: false,
    error: 'DNS lookup failed for db.invalid',
  });
});

test('with tls: the handshake, its certificate recorded; an untrusted one fails unless ignored', async (t) => {
  const pem = await certificateFor(5);
  const server = await listen(tls.createServer(pem, (s) => s.end()));
  t.teardown(() => server.close());
  const url = `tcp://localhost:${server.port}`;
  const untrusted = await probe(tcpMonitor(url, { tls: true }), egress);
  t.false(untrusted.result.ok);
  t.is(untrusted.result.error, 'TLS error: self-signed certificate');
  const ignored = await probe(
    tcpMonitor(url, {
      tls: true,
      ignore_tls_errors: true,
      assertions: [{ source: 'certificate_expiry_days', op: 'gte', value: 7 }],
    }),
    egress,
  );
  const cert = ignored.result.certificate;
  t.truthy(cert);
  t.deepEqual(cert?.names, ['localhost', '127.0.0.1']);
  t.is(cert?.subject, 'CN=localhost');
  t.is(cert?.issuer, 'CN=localhost');
  const left = daysLeft(cert!, ignored.result.checked_at);
  t.true(left === 4 || left === 5, String(left));
  t.false(ignored.result.ok, 'the expiry assertion fails');
  t.is(ignored.result.error, `certificate_expiry_days gte 7: got ${left}`);
  // Plain TCP to a TLS port: the connection is what is checked.
  t.like((await probe(tcpMonitor(url), egress)).result, { ok: true });
});

test('a TLS handshake that does not come: a timeout', async (t) => {
  // Accepts the connection and says nothing.
  const server = await listen(net.createServer(() => undefined));
  t.teardown(() => server.close());
  const { result } = await probe(
    tcpMonitor(`tcp://127.0.0.1:${server.port}`, { tls: true, timeout_seconds: 1 }),
    egress,
  );
  t.like(result, { ok: false, error: 'timeout: no TLS handshake within 1 s' });
});

test("an address the egress policy denies is never connected to: the policy's text", async (t) => {
  const server = await listen(net.createServer((s) => s.end()));
  t.teardown(() => server.close());
  const denied = egressPolicy(rules('127.0.0.0/8'), { resolve });
  for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
    const probed = await probe(tcpMonitor(`tcp://${host}:${server.port}`), denied);
    t.true(probed.refused, host);
    t.like(probed.result, { ok: false, error: 'blocked by egress policy (127.0.0.1 is in 127.0.0.0/8)' }, host);
  }
  t.is(server.connections, 0);
});
