import test from 'ava';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configCommand } from '../../src/cli/config/commands.ts';
import { api, login, startTestServer, tempDir } from '../helpers/server.ts';

/** `watchlog plan` and `apply` with an API key of the `config` scope: its own project, and nothing
 *  else (no other project, no users, no keys). Against the real app on 127.0.0.1. */

const FILE = `projects:
  - name: shop
    monitors:
      - { name: checkout-api, url: "https://shop.example.com/healthz", interval_seconds: 30 }
    channels:
      - { name: ops, type: slack, url: "\${SLACK_URL}" }
    status_pages:
      - { slug: shop-status, title: Shop, groups: [{ name: Checkout, monitors: [checkout-api] }] }
    maintenance:
      - { title: Upkeep, monitors: all, starts_at: "2026-01-04T02:00:00Z", ends_at: "2026-01-04T03:00:00Z" }
    masking: { keys: [card_cvc], patterns: [] }
    anomaly_settings:
      brute_force: { threshold: 5 }
`;

test('a config key plans and applies its own project; it is refused elsewhere', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop({ remove: true }));
  const token = await login(server.url);
  const project = async (name: string) =>
    (await api(server.url, 'POST', '/v1/projects', { token, body: { name } })).body.id as string;
  const [shop, other] = [await project('shop'), await project('other')];
  const keyOf = async (scopes: string[]) =>
    (await api(server.url, 'POST', `/v1/projects/${shop}/api-keys`, { token, body: { name: 'ci', scopes } })).body
      .key as string;
  const configKey = await keyOf(['config']);
  const ingestKey = await keyOf(['ingest']);
  const file = path.join(tempDir('watchlog-config-key-'), 'watchlog.yaml');
  writeFileSync(file, FILE);
  const run = async (command: 'plan' | 'apply', args: string[], key: string) => {
    let out = '';
    let err = '';
    const env = {
      WATCHLOG_URL: server.url,
      WATCHLOG_API_KEY: key,
      SLACK_URL: 'https://hooks.slack.com/services/T/B/s',
    };
    const code = await configCommand(command, args, env, { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  };

  const plan = await run('plan', ['-f', file], configKey);
  t.is(plan.code, 2, plan.err);
  t.regex(plan.out, /Plan: 4 to create, 2 to change, 0 to replace, 0 to delete\./);
  const applied = await run('apply', ['-f', file], configKey);
  t.is(applied.code, 0, applied.err);
  t.is((await run('plan', ['-f', file], configKey)).code, 0);
  const monitors = await api(server.url, 'GET', `/v1/monitors?project_id=${shop}`, { token });
  t.like(monitors.body[0], { name: 'checkout-api', interval_seconds: 30, managed_by: 'config-file' });
  // --api-key on the command line does the same.
  const flagged = await run('plan', ['-f', file, '--api-key', configKey], '');
  t.is(flagged.code, 0, flagged.err + flagged.out);

  // Another project is not the key's: not even seen.
  const elsewhere = await api(server.url, 'GET', `/v1/monitors?project_id=${other}`, { apiKey: configKey });
  t.is(elsewhere.status, 404);
  const write = await api(server.url, 'POST', '/v1/monitors', {
    apiKey: configKey,
    body: { project_id: other, name: 'x', url: 'https://example.com/' },
  });
  t.is(write.status, 404);
  const otherFile = path.join(path.dirname(file), 'other.yaml');
  writeFileSync(otherFile, FILE.replace('name: shop', 'name: other'));
  const refused = await run('apply', ['-f', otherFile], configKey);
  t.is(refused.code, 1);
  t.regex(refused.err, /POST \/v1\/projects: 403/);
  // Users, keys and projects are no configuration: 403 naming what the key lacks.
  for (const [method, url, body] of [
    ['GET', '/v1/users', undefined],
    ['POST', '/v1/users', { email: 'x@example.com', password: 'a-long-password-1', role: 'admin' }],
    ['GET', `/v1/projects/${shop}/api-keys`, undefined],
    ['POST', `/v1/projects/${shop}/api-keys`, { name: 'more', scopes: ['config'] }],
    ['POST', '/v1/projects', { name: 'mine' }],
  ] as const) {
    const answer = await api(server.url, method, url, { apiKey: configKey, body });
    t.is(answer.status, 403, `${method} ${url}`);
  }
  // Retention deletes events: setting it stays an admin's.
  const retention = await api(server.url, 'PUT', `/v1/projects/${shop}/retention`, {
    apiKey: configKey,
    body: { retention_days: 1 },
  });
  t.is(retention.status, 403);

  // A key without the scope: plan says what it needs.
  const ingest = await run('plan', ['-f', file], ingestKey);
  t.is(ingest.code, 1);
  t.regex(ingest.err, /^watchlog plan: GET \/v1\/projects: 403 .*needs the scope "config" \(it has ingest\)/m);
  t.regex(ingest.err, /an API key of the project with the "config" scope/);
});
