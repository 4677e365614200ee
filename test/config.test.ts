import test from 'ava';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';
import { formatCidr } from '../src/domain/egress-rules.ts';

test('defaults', (t) => {
  const c = loadConfig({});
  t.is(c.port, 3000);
  t.is(c.host, '127.0.0.1');
  t.is(c.dataDir, path.resolve('data'));
  t.is(c.bodyLimitBytes, 1_048_576);
  t.is(c.jwtTtlSeconds, 43_200);
  t.is(c.logLevel, 'info');
  t.is(c.jwtSecret, undefined);
  t.is(c.admin, undefined);
});

test('values are decoded; an empty value counts as unset', (t) => {
  const c = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    WATCHLOG_DATA_DIR: '/var/lib/watchlog',
    WATCHLOG_BODY_LIMIT_BYTES: '',
    WATCHLOG_ADMIN_EMAIL: 'a@b.c',
    WATCHLOG_ADMIN_PASSWORD: 'long-enough',
  });
  t.is(c.port, 8080);
  t.is(c.host, '0.0.0.0');
  t.is(c.dataDir, '/var/lib/watchlog');
  t.is(c.bodyLimitBytes, 1_048_576);
  t.deepEqual(c.admin, { email: 'a@b.c', password: 'long-enough' });
});

test('every bad variable is reported at once, secrets never echoed', (t) => {
  const error = t.throws(
    () =>
      loadConfig({
        PORT: 'abc',
        WATCHLOG_JWT_SECRET: 'too-short-secret',
        WATCHLOG_LOG_LEVEL: 'loud',
        WATCHLOG_BODY_LIMIT_BYTES: '10',
      }),
    { instanceOf: ConfigError },
  );
  t.is(error?.problems.length, 4);
  t.regex(error!.message, /PORT: expected integer 0-65535, got "abc"/);
  t.regex(error!.message, /WATCHLOG_JWT_SECRET: expected string of at least 32 characters, got \(hidden\)/);
  t.regex(error!.message, /WATCHLOG_LOG_LEVEL/);
  t.regex(error!.message, /WATCHLOG_BODY_LIMIT_BYTES/);
  t.false(error!.message.includes('too-short-secret'));
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /PORT/ });
});

test('admin e-mail and password go together', (t) => {
  t.throws(() => loadConfig({ WATCHLOG_ADMIN_EMAIL: 'a@b.c' }), { instanceOf: ConfigError, message: /set together/ });
  t.throws(() => loadConfig({ WATCHLOG_ADMIN_PASSWORD: 'long-enough' }), { instanceOf: ConfigError });
});

test('VAPID keys go together, are validated, and the private one is never echoed', (t) => {
  const publicKey = `B${'x'.repeat(86)}`;
  const privateKey = 'y'.repeat(43);
  t.deepEqual(loadConfig({ WATCHLOG_VAPID_PUBLIC_KEY: publicKey, WATCHLOG_VAPID_PRIVATE_KEY: privateKey }).vapid, {
    publicKey,
    privateKey,
  });
  t.is(loadConfig({}).vapid, undefined);
  t.is(loadConfig({}).vapidSubject, 'mailto:watchlog@localhost');
  t.throws(() => loadConfig({ WATCHLOG_VAPID_PUBLIC_KEY: publicKey }), {
    instanceOf: ConfigError,
    message: /set together/,
  });
  const error = t.throws(
    () =>
      loadConfig({
        WATCHLOG_VAPID_PUBLIC_KEY: publicKey,
        WATCHLOG_VAPID_PRIVATE_KEY: 'short!',
        WATCHLOG_VAPID_SUBJECT: 'ops',
      }),
    { instanceOf: ConfigError },
  );
  t.regex(error?.message ?? '', /WATCHLOG_VAPID_PRIVATE_KEY: .*\(hidden\)/);
  t.regex(error?.message ?? '', /WATCHLOG_VAPID_SUBJECT/);
  t.false((error?.message ?? '').includes('short!'));
});

test(
  'anomaly scan interval and defaults: ' + 'a settings update in JSON over the built-in defaults, every problem named',
  (t) => {
    const c = loadConfig({});
    t.is(c.anomalyScanMs, 30_000);
    t.deepEqual(c.anomalyDefaults.brute_force, { enabled: true, threshold: 10, window_secs: 60 });
    const custom = loadConfig({
      WATCHLOG_ANOMALY_SCAN_SECONDS: '10',
      WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":5},"silent_service":{"enabled":false}}',
    });
    t.is(custom.anomalyScanMs, 10_000);
    t.deepEqual(custom.anomalyDefaults.brute_force, { enabled: true, threshold: 5, window_secs: 60 });
    t.false(custom.anomalyDefaults.silent_service.enabled);
    t.throws(() => loadConfig({ WATCHLOG_ANOMALY_SCAN_SECONDS: '2' }), {
      message: /WATCHLOG_ANOMALY_SCAN_SECONDS: expected integer 5-3600/,
    });
    t.throws(() => loadConfig({ WATCHLOG_ANOMALY_DEFAULTS: '{brute' }), {
      message: /WATCHLOG_ANOMALY_DEFAULTS: expected a JSON object/,
    });
    const error = t.throws(
      () =>
        loadConfig({ WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":0},"mass_delete":{"window_secs":15}}' }),
      { instanceOf: ConfigError },
    );
    t.deepEqual(error?.problems, [
      'WATCHLOG_ANOMALY_DEFAULTS: brute_force.threshold: must be an integer from 1 to 1000000 or null',
      'WATCHLOG_ANOMALY_DEFAULTS: mass_delete.window_secs: must be a multiple of 10 from 10 to 3600 or null',
    ]);
    t.throws(() => loadConfig({ WATCHLOG_ANOMALY_DEFAULTS: '{"volume_spike":{"baseline_minutes":20}}' }), {
      message: /volume_spike.min_baseline_minutes: must not exceed baseline_minutes \(20\)/,
    });
    t.throws(() => loadConfig({ WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":null}}' }), {
      message: /null is not a value here/,
    });
  },
);

test(
  'egress rules: the default deny list, lists of IPs and CIDRs, ' +
    'host names only in the allow list, one line per faulty variable',
  (t) => {
    const c = loadConfig({});
    t.deepEqual(c.egress.deny.map(formatCidr), [
      '169.254.0.0/16',
      'fe80::/10',
      'fd00:ec2::254',
      '100.100.100.200',
      '0.0.0.0/8',
      '::',
      '255.255.255.255',
      '224.0.0.0/4',
      'ff00::/8',
    ]);
    t.deepEqual([c.egress.allow, c.egress.allowHosts], [[], []]);
    const custom = loadConfig({
      WATCHLOG_EGRESS_DENY: '127.0.0.0/8, ::1/128,10.0.0.0/8',
      WATCHLOG_EGRESS_ALLOW: '10.1.2.3,Status.Example.com',
    });
    t.deepEqual(custom.egress.deny.map(formatCidr), ['127.0.0.0/8', '::1', '10.0.0.0/8']);
    t.deepEqual(custom.egress.allow.map(formatCidr), ['10.1.2.3']);
    t.deepEqual(custom.egress.allowHosts, ['status.example.com']);
    t.deepEqual(loadConfig({ WATCHLOG_EGRESS_DENY: '' }).egress.deny, c.egress.deny, 'empty is unset: the default');

    const error = t.throws(
      () =>
        loadConfig({
          WATCHLOG_EGRESS_DENY: '10.0.0.0/33,example.com,192.168.0.0/16',
          WATCHLOG_EGRESS_ALLOW: '300.1.1.1,fd00::/8',
          PORT: 'x',
        }),
      { instanceOf: ConfigError },
    );
    t.deepEqual(error?.problems, [
      'PORT: expected integer 0-65535, got "x"',
      'WATCHLOG_EGRESS_DENY: expected comma-separated IP addresses or CIDRs (e.g. 10.0.0.0/8,fc00::/7), ' +
        'got "10.0.0.0/33, example.com"',
      'WATCHLOG_EGRESS_ALLOW: expected comma-separated IP addresses, CIDRs or host names, got "300.1.1.1"',
    ]);
    t.throws(() => loadConfig({ WATCHLOG_EGRESS_DENY: ',' }), {
      message: /WATCHLOG_EGRESS_DENY: expected .*, got "\(no entries\)"/,
    });
  },
);

test(
  'metrics: a bearer token for /metrics on the API port, ' +
    'a port of their own (on 127.0.0.1 by default), neither by default',
  (t) => {
    t.deepEqual(loadConfig({}).metrics, { token: undefined, port: undefined, host: '127.0.0.1' });
    const token = 'a-metrics-token-0123';
    t.deepEqual(
      loadConfig({ WATCHLOG_METRICS_TOKEN: token, WATCHLOG_METRICS_PORT: '9464', WATCHLOG_METRICS_HOST: '0.0.0.0' })
        .metrics,
      { token, port: 9464, host: '0.0.0.0' },
    );
    t.deepEqual(loadConfig({ WATCHLOG_METRICS_PORT: '0', WATCHLOG_METRICS_TOKEN: '' }).metrics, {
      token: undefined,
      port: 0,
      host: '127.0.0.1',
    });
    // The same port on another address is for the listeners to judge.
    t.is(
      loadConfig({ PORT: '3000', WATCHLOG_METRICS_PORT: '3000', WATCHLOG_METRICS_HOST: '10.0.0.5' }).metrics.port,
      3000,
    );

    const bad = t.throws(() => loadConfig({ WATCHLOG_METRICS_TOKEN: 'short token', WATCHLOG_METRICS_PORT: '70000' }), {
      instanceOf: ConfigError,
    });
    t.is(bad?.problems.length, 2);
    t.regex(
      bad!.message,
      /WATCHLOG_METRICS_TOKEN: expected 16 to 512 printable characters without spaces, got \(hidden\)/,
    );
    t.regex(bad!.message, /WATCHLOG_METRICS_PORT: expected integer 0-65535, got "70000"/);
    t.false(bad!.message.includes('short token'));
    t.throws(() => loadConfig({ WATCHLOG_METRICS_TOKEN: 'x'.repeat(15) }), {
      instanceOf: ConfigError,
      message: /WATCHLOG_METRICS_TOKEN/,
    });
    t.throws(() => loadConfig({ WATCHLOG_METRICS_HOST: '0.0.0.0' }), {
      instanceOf: ConfigError,
      message: /WATCHLOG_METRICS_HOST .*set WATCHLOG_METRICS_PORT too/,
    });
    t.throws(() => loadConfig({ PORT: '3000', WATCHLOG_METRICS_PORT: '3000' }), {
      instanceOf: ConfigError,
      message: /WATCHLOG_METRICS_PORT \(3000\) must differ from PORT on 127\.0\.0\.1/,
    });
  },
);

test('HTTP limits: defaults, values, ranges, and headers within the request timeout', (t) => {
  t.deepEqual(loadConfig({}).http, {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    bodyTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 1_000,
  });
  t.deepEqual(
    loadConfig({
      WATCHLOG_HEADERS_TIMEOUT_MS: '2000',
      WATCHLOG_REQUEST_TIMEOUT_MS: '60000',
      WATCHLOG_BODY_TIMEOUT_MS: '500',
      WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: '65000',
      WATCHLOG_MAX_CONNECTIONS: '20000',
    }).http,
    {
      headersTimeoutMs: 2000,
      requestTimeoutMs: 60_000,
      bodyTimeoutMs: 500,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 20_000,
    },
  );
  const error = t.throws(
    () =>
      loadConfig({
        WATCHLOG_HEADERS_TIMEOUT_MS: '10',
        WATCHLOG_REQUEST_TIMEOUT_MS: '30s',
        WATCHLOG_BODY_TIMEOUT_MS: '0',
        WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: '600001',
        WATCHLOG_MAX_CONNECTIONS: '0',
      }),
    { instanceOf: ConfigError },
  );
  t.deepEqual(error?.problems, [
    'WATCHLOG_HEADERS_TIMEOUT_MS: expected integer 100-600000, got "10"',
    'WATCHLOG_REQUEST_TIMEOUT_MS: expected integer 100-3600000, got "30s"',
    'WATCHLOG_BODY_TIMEOUT_MS: expected integer 100-600000, got "0"',
    'WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: expected integer 100-600000, got "600001"',
    'WATCHLOG_MAX_CONNECTIONS: expected integer 1-1000000, got "0"',
  ]);
  t.throws(() => loadConfig({ WATCHLOG_HEADERS_TIMEOUT_MS: '40000' }), {
    instanceOf: ConfigError,
    message: /WATCHLOG_HEADERS_TIMEOUT_MS \(40000\) must not exceed WATCHLOG_REQUEST_TIMEOUT_MS \(30000\)/,
  });
});

test('ingest: batches worked on at once default to 4, from 1 to 1000', (t) => {
  t.is(loadConfig({}).ingest.batchConcurrency, 4);
  t.is(loadConfig({ WATCHLOG_BATCH_CONCURRENCY: '16' }).ingest.batchConcurrency, 16);
  for (const bad of ['0', '1001', '2.5', 'many']) {
    t.throws(
      () => loadConfig({ WATCHLOG_BATCH_CONCURRENCY: bad }),
      { message: /WATCHLOG_BATCH_CONCURRENCY: expected integer 1-1000/ },
      bad,
    );
  }
});

test('log compaction: every 60 s by default, 0 turns it off, at most daily', (t) => {
  t.is(loadConfig({}).logCompactionEveryMs, 60_000);
  t.is(loadConfig({ WATCHLOG_LOG_COMPACTION_SECONDS: '600' }).logCompactionEveryMs, 600_000);
  t.is(loadConfig({ WATCHLOG_LOG_COMPACTION_SECONDS: '0' }).logCompactionEveryMs, null);
  for (const bad of ['-1', '86401', '1.5', 'off']) {
    t.throws(
      () => loadConfig({ WATCHLOG_LOG_COMPACTION_SECONDS: bad }),
      { message: /WATCHLOG_LOG_COMPACTION_SECONDS: expected integer 0-86400/ },
      bad,
    );
  }
});

test("subscribers' SMTP server: off unless the host is set; the host needs a sender and the public URL", (t) => {
  t.is(loadConfig({}).subscriberMail, null);
  const base = {
    WATCHLOG_SMTP_HOST: 'smtp.example.com',
    WATCHLOG_SMTP_FROM: 'Acme status <status@example.com>',
    WATCHLOG_PUBLIC_URL: 'https://status.example.com',
  };
  t.deepEqual(loadConfig(base).subscriberMail, {
    smtp: { host: 'smtp.example.com', port: 587, security: 'starttls', reject_unauthorized: true },
    from: 'Acme status <status@example.com>',
  });
  t.like(loadConfig({ ...base, WATCHLOG_SMTP_SECURITY: 'tls' }).subscriberMail?.smtp, { port: 465, security: 'tls' });
  t.like(
    loadConfig({
      ...base,
      WATCHLOG_SMTP_SECURITY: 'none',
      WATCHLOG_SMTP_PORT: '2525',
      WATCHLOG_SMTP_USERNAME: 'mailer',
      WATCHLOG_SMTP_PASSWORD: 'hunter22',
      WATCHLOG_SMTP_REJECT_UNAUTHORIZED: 'false',
      WATCHLOG_SMTP_CA: '-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----',
    }).subscriberMail?.smtp,
    {
      port: 2525,
      security: 'none',
      username: 'mailer',
      password: 'hunter22',
      reject_unauthorized: false,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    },
  );
  const error = t.throws(() => loadConfig({ WATCHLOG_SMTP_HOST: 'smtp.example.com' }), { instanceOf: ConfigError });
  t.regex(error!.message, /WATCHLOG_SMTP_FROM: required with WATCHLOG_SMTP_HOST/);
  t.regex(error!.message, /WATCHLOG_PUBLIC_URL: required with WATCHLOG_SMTP_HOST/);
  t.throws(() => loadConfig({ WATCHLOG_SMTP_FROM: 'status@example.com' }), {
    message: /WATCHLOG_SMTP_FROM: set WATCHLOG_SMTP_HOST too/,
  });
  t.throws(() => loadConfig({ ...base, WATCHLOG_SMTP_PASSWORD: 'hunter22' }), {
    message: /WATCHLOG_SMTP_PASSWORD: set WATCHLOG_SMTP_USERNAME too/,
  });
  t.throws(() => loadConfig({ ...base, WATCHLOG_SMTP_SECURITY: 'ssl' }), { message: /starttls, tls or none/ });
  t.throws(() => loadConfig({ ...base, WATCHLOG_SMTP_CA: '/no/such/ca.pem' }), { message: /cannot read/ });
  t.throws(() => loadConfig({ ...base, WATCHLOG_SMTP_PORT: '0' }), {
    message: /WATCHLOG_SMTP_PORT: expected integer 1-65535/,
  });
});
