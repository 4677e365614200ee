import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_EGRESS_DENY, loadConfig } from '../src/config.ts';
import { ROOT } from './helpers/root.ts';

/** docker-compose.yml is validated by Debian's docker-compose (`config -q` parses, interpolates and
 *  checks the file against the compose schema without an engine). .ci/run installs it. */
const root = ROOT;
const installed = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;

const config = (file: string, env: Record<string, string>) =>
  spawnSync('docker-compose', ['-f', file, 'config'], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });

/** What a user must set: the JWT secret and the first admin's password. */
const SECRETS = { WATCHLOG_JWT_SECRET: 'x'.repeat(48), WATCHLOG_ADMIN_PASSWORD: 'a long admin password' };

if (!installed) {
  test.skip(
    'docker-compose.yml validation: skipped, ' + 'docker-compose is not installed (apt-get install docker-compose)',
    (t) => t.pass(),
  );
} else {
  test('docker-compose.yml is valid and runs KurrentDB, MongoDB, api and worker', (t) => {
    const result = config(path.join(root, 'docker-compose.yml'), SECRETS);
    t.is(result.status, 0, result.stderr);
    for (const service of ['kurrentdb:', 'mongodb:', 'api:', 'worker:'])
      t.true(result.stdout.includes(`  ${service}`), service);
    t.regex(result.stdout, /WATCHLOG_EVENTSTORE_URL: kurrentdb:\/\/kurrentdb:2113\?tls=false/);
    t.regex(result.stdout, /WATCHLOG_MONGO_URL: mongodb:\/\/mongodb:27017\/watchlog/);
    // Nothing else reclaims what $maxCount hides in KurrentDB: a scavenge is asked for on a schedule.
    t.regex(result.stdout, /scavenger:[\s\S]*POST[\s\S]*http:\/\/kurrentdb:2113\/admin\/scavenge/);
    // Only the API is published: KurrentDB runs insecure, MongoDB without auth, inside the network.
    t.is(result.stdout.match(/^ {4}ports:/gm)?.length, 1, 'one service publishes ports');
    t.regex(result.stdout, /api:[\s\S]*ports:[\s\S]*3000/);
    const tuned = config(path.join(root, 'docker-compose.yml'), {
      ...SECRETS,
      WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":5}}',
    });
    t.is(
      tuned.stdout.match(/WATCHLOG_ANOMALY_DEFAULTS: '\{"brute_force":\{"threshold":5\}\}'/g)?.length,
      2,
      'api and worker get the same defaults',
    );
  });

  test(
    'api and worker deny loopback and private ranges on top of the built-in egress deny list, ' +
      'and the deny list is valid',
    (t) => {
      const result = config(path.join(root, 'docker-compose.yml'), SECRETS);
      t.is(result.status, 0, result.stderr);
      const lists = [...result.stdout.matchAll(/WATCHLOG_EGRESS_DENY: (.+)/g)].map((m) =>
        m[1]!.replace(/^'(.*)'$/, '$1'),
      );
      t.is(lists.length, 2, 'api and worker');
      t.is(lists[0], lists[1]);
      const deny = lists[0]!.split(',');
      for (const range of [
        ...DEFAULT_EGRESS_DENY.split(','),
        '127.0.0.0/8',
        '::1/128',
        '10.0.0.0/8',
        '172.16.0.0/12',
        '192.168.0.0/16',
        '100.64.0.0/10',
        'fc00::/7',
      ]) {
        t.true(deny.includes(range), range);
      }
      t.notThrows(() => loadConfig({ WATCHLOG_EGRESS_DENY: lists[0] }), 'watchlog accepts it');
      const opened = config(path.join(root, 'docker-compose.yml'), {
        ...SECRETS,
        WATCHLOG_EGRESS_ALLOW: 'status.internal',
      });
      t.is(opened.stdout.match(/WATCHLOG_EGRESS_ALLOW: status\.internal/g)?.length, 2);
    },
  );

  test('the validator rejects what is wrong: a missing JWT secret or admin password, an unknown key', (t) => {
    const missing = config(path.join(root, 'docker-compose.yml'), {});
    t.not(missing.status, 0);
    t.regex(missing.stderr, /WATCHLOG_JWT_SECRET|WATCHLOG_ADMIN_PASSWORD/);
    const noPassword = config(path.join(root, 'docker-compose.yml'), { WATCHLOG_JWT_SECRET: 'x'.repeat(48) });
    t.not(noPassword.status, 0);
    t.regex(noPassword.stderr, /WATCHLOG_ADMIN_PASSWORD/);
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-'));
    const broken = path.join(dir, 'docker-compose.yml');
    writeFileSync(
      broken,
      readFileSync(path.join(root, 'docker-compose.yml'), 'utf8').replace(
        '    command: ["worker"]',
        '    command: ["worker"]\n    no_such_key: true',
      ),
    );
    const invalid = config(broken, SECRETS);
    t.not(invalid.status, 0);
    t.regex(invalid.stderr, /no_such_key/);
    rmSync(dir, { recursive: true, force: true });
  });
}
