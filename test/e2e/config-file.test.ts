import test, { type ExecutionContext } from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configCommand } from '../../src/cli/config/commands.ts';
import { repoPath } from '../helpers/root.ts';
import { api, login, startTestServer, tempDir } from '../helpers/server.ts';

/** `watchlog plan`, `apply` and `export` against the real app on 127.0.0.1, through its REST API. */

const SLACK = 'https://hooks.slack.com/services/T000/B000/very-secret-value';
const TOKEN = 'bearer-secret-4f9a0c2e';

const FILE = `# yaml-language-server: $schema=../schemas/watchlog-config.schema.json
projects:
  - name: shop
    monitors:
      - name: checkout-api
        url: https://shop.example.com/healthz
        interval_seconds: 30
        assertions:
          - { source: status, op: equals, value: 200 }
          - { source: json, path: $.status, op: equals, value: ok }
      - name: private-api
        url: https://shop.example.com/private
        auth:
          type: bearer
          token: \${PRIVATE_TOKEN}
      - name: nightly-backup
        type: heartbeat
        grace_seconds: 300
    channels:
      - name: ops
        type: slack
        url: \${SLACK_URL}
    status_pages:
      - slug: shop-status
        title: Shop status
        published: true
        groups:
          - { name: Checkout, monitors: [checkout-api] }
    maintenance:
      - title: Weekly database upkeep
        monitors: [checkout-api]
        rrule: FREQ=WEEKLY;BYDAY=SU
        starts_at: 2026-01-04T02:00:00Z
        duration_minutes: 60
        timezone: Europe/Berlin
    masking: { keys: [card_cvc], patterns: [] }
    retention_days: 90
    anomaly_settings:
      brute_force: { threshold: 5 }
`;

interface Run {
  code: number;
  out: string;
  err: string;
}

const setup = async (t: ExecutionContext) => {
  const server = await startTestServer();
  t.teardown(() => server.stop({ remove: true }));
  const token = await login(server.url);
  const dir = tempDir('watchlog-config-');
  const env = { WATCHLOG_URL: server.url, WATCHLOG_TOKEN: token, SLACK_URL: SLACK, PRIVATE_TOKEN: TOKEN };
  const run = async (command: 'plan' | 'apply' | 'export', args: string[], extra: object = {}): Promise<Run> => {
    let out = '';
    let err = '';
    const code = await configCommand(
      command,
      args,
      { ...env, ...extra },
      {
        out: (s) => (out += s),
        err: (s) => (err += s),
      },
    );
    return { code, out, err };
  };
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  return { server, token, run, write, dir };
};

test('apply makes what plan shows; a second apply and a plan change nothing; no secret is printed', async (t) => {
  const { server, token, run, write } = await setup(t);
  const file = write('watchlog.yaml', FILE);
  const plan = await run('plan', ['-f', file]);
  t.is(plan.code, 2, plan.err);
  t.regex(plan.out, /\+ project "shop"/);
  t.regex(plan.out, /\+ monitor "checkout-api" in shop/);
  t.regex(plan.out, /\+ channel "ops" in shop\n\s+name = "ops"\n\s+type = "slack"\n\s+url = \(sensitive\)/);
  t.regex(plan.out, /auth = \(sensitive\)/);
  t.regex(plan.out, /\+ retention of shop\n\s+retention_days = 90\n/);
  t.regex(plan.out, /Plan: 10 to create, 0 to change, 0 to replace, 0 to delete\./);

  const applied = await run('apply', ['-f', file]);
  t.is(applied.code, 0, applied.err);
  t.regex(applied.out, /created monitor "checkout-api" in shop/);
  // A heartbeat's URL is answered once by the API, so apply shows it once.
  const heartbeat = /created monitor "nightly-backup" in shop\n {6}heartbeat URL \(shown once\): (\S+)\n/;
  t.regex(heartbeat.exec(applied.out)?.[1] ?? '', /^http:\/\/127\.0\.0\.1:\d+\/v1\/heartbeat\/[\w-]{43}$/);
  for (const text of [plan.out, plan.err, applied.out, applied.err]) {
    t.false(text.includes('very-secret-value'));
    t.false(text.includes(TOKEN));
  }

  const projects = (await api(server.url, 'GET', '/v1/projects', { token })).body as Array<{
    id: string;
    name: string;
  }>;
  const shop = projects.find((p) => p.name === 'shop')!;
  const monitors = (await api(server.url, 'GET', `/v1/monitors?project_id=${shop.id}`, { token })).body;
  t.deepEqual(
    monitors.map((m: { name: string; managed_by: string }) => [m.name, m.managed_by.split(' ')[0]]),
    [
      ['checkout-api', 'config-file'],
      ['private-api', 'config-file'],
      ['nightly-backup', 'config-file'],
    ],
  );
  const retention = await api(server.url, 'GET', `/v1/projects/${shop.id}/retention`, { token });
  t.is(retention.body.retention_days, 90);

  const again = await run('apply', ['-f', file]);
  t.is(again.code, 0, again.err);
  t.regex(again.out, /No changes/);
  const replan = await run('plan', ['-f', file]);
  t.is(replan.code, 0, replan.out);

  // Each change is a system.access row of the built-in project, all with the apply's request id.
  const requestId = /request id (config-apply-[\w-]+)/.exec(applied.out)![1]!;
  const access = await api(server.url, 'GET', `/v1/audit?event_type=system.access&limit=100`, { token });
  const rows = (access.body.data as Array<{ id: string }>).length;
  t.true(rows > 0);
  const audit = await api(server.url, 'GET', `/v1/audit/export?format=json`, { token });
  const ofApply = (audit.body as Array<{ request_id?: string; path: string }>).filter(
    (e) => e.request_id === requestId,
  );
  t.true(
    ofApply.some((e) => e.path.startsWith('/v1/monitors')),
    JSON.stringify(ofApply.slice(0, 3)),
  );
  // …and the apply itself is one row naming every change.
  const summary = ofApply.find((e) => e.path === '/v1/config/applies') as unknown as {
    request_body: { action: string; file: string; changes: Array<{ action: string; kind: string; name: string }> };
  };
  t.like(summary.request_body, { action: 'config.applied', file: 'watchlog.yaml' });
  t.is(summary.request_body.changes.length, 10);
  t.like(summary.request_body.changes[1], { action: 'create', kind: 'monitor', name: 'checkout-api' });
  t.false(JSON.stringify(audit.body).includes('very-secret-value'));
});

test('export gives a file plan shows no change for; editing one field shows that field only', async (t) => {
  const { run, write } = await setup(t);
  t.is((await run('apply', ['-f', write('watchlog.yaml', FILE)])).code, 0);
  const exported = await run('export', ['-p', 'shop']);
  t.is(exported.code, 0, exported.err);
  t.regex(exported.out, /^# yaml-language-server: \$schema=/);
  t.false(exported.out.includes('very-secret-value'));
  t.regex(exported.out, /url: \$\{SHOP_OPS_URL\}/);
  t.regex(exported.out, /token: \$\{SHOP_PRIVATE_API_TOKEN\}/);
  const file = write('exported.yaml', exported.out);
  const secrets = { SHOP_OPS_URL: SLACK, SHOP_PRIVATE_API_TOKEN: TOKEN };
  const plan = await run('plan', ['-f', file], secrets);
  t.is(plan.code, 0, plan.out + plan.err);
  t.regex(plan.out, /No changes/);

  const edited = write('edited.yaml', exported.out.replace('interval_seconds: 30', 'interval_seconds: 45'));
  const changed = await run('plan', ['-f', edited], secrets);
  t.is(changed.code, 2, changed.err);
  t.is(
    changed.out,
    '  ~ monitor "checkout-api" in shop\n      interval_seconds: 30 → 45\n\n' +
      'Plan: 0 to create, 1 to change, 0 to replace, 0 to delete.\n',
  );
  // A changed secret shows as changed, and sensitive.
  const rotated = await run('plan', ['-f', file], { ...secrets, SHOP_PRIVATE_API_TOKEN: 'another-secret' });
  t.regex(rotated.out, /~ monitor "private-api" in shop\n\s+auth: \(sensitive\) → \(sensitive\)\n\n/);
  t.false(rotated.out.includes('another-secret'));
});

test('--prune deletes a monitor the file dropped and leaves one made by hand', async (t) => {
  const { server, token, run, write } = await setup(t);
  t.is((await run('apply', ['-f', write('watchlog.yaml', FILE)])).code, 0);
  const shop = (
    (await api(server.url, 'GET', '/v1/projects', { token })).body as Array<{ id: string; name: string }>
  ).find((p) => p.name === 'shop')!;
  const hand = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: shop.id, name: 'by-hand', url: 'https://shop.example.com/by-hand' },
  });
  t.is(hand.status, 201);
  const dropped = write(
    'dropped.yaml',
    FILE.replace(/ {6}- name: nightly-backup\n {8}type: heartbeat\n {8}grace_seconds: 300\n/, ''),
  );
  const without = await run('plan', ['-f', dropped]);
  t.is(without.code, 0, without.out);
  const plan = await run('plan', ['-f', dropped, '--prune']);
  t.is(plan.code, 2);
  t.regex(plan.out, /- monitor "nightly-backup" in shop \(made by the file, no longer in it\)/);
  t.false(plan.out.includes('by-hand'));
  t.is((await run('apply', ['-f', dropped, '--prune'])).code, 0);
  const names = (await api(server.url, 'GET', `/v1/monitors?project_id=${shop.id}`, { token })).body.map(
    (m: { name: string }) => m.name,
  );
  t.deepEqual(names.sort(), ['by-hand', 'checkout-api', 'private-api']);
});

test('every fault names file:line:column and the field; a faulty file changes nothing', async (t) => {
  const { run, write, server, token } = await setup(t);
  const file = write(
    'watchlog.yaml',
    FILE.replace('interval_seconds: 30', 'interval_seconds: 5').replace(
      'published: true',
      'published: true\n        colour: red',
    ),
  );
  const plan = await run('plan', ['-f', file]);
  t.is(plan.code, 1);
  t.regex(plan.err, /^watchlog\.yaml:7:27 projects\[0\]\.monitors\[0\]\.interval_seconds: must be an integer from 10/m);
  t.regex(plan.err, /^watchlog\.yaml:27:9 projects\[0\]\.status_pages\[0\]\.colour: is not a known field/m);
  const apply = await run('apply', ['-f', file]);
  t.is(apply.code, 1);
  const projects = (await api(server.url, 'GET', '/v1/projects', { token })).body as Array<{ name: string }>;
  t.false(projects.some((p) => p.name === 'shop'));
  const unset = await run('plan', ['-f', write('unset.yaml', FILE)], { SLACK_URL: '' });
  t.regex(unset.err, /^unset\.yaml:22:14 projects\[0\]\.channels\[0\]\.url: \$\{SLACK_URL\} is not set/m);
  const usage = await run('plan', ['--colour', 'red']);
  t.is(usage.code, 1);
  t.regex(usage.err, /^watchlog plan: /);
  const away = await run('plan', ['-f', file.replace('watchlog.yaml', 'unset.yaml'), '--url', 'http://127.0.0.1:9']);
  t.is(away.code, 1);
  t.regex(away.err, /^watchlog plan: cannot reach http:\/\/127\.0\.0\.1:9/);
  const syntax = await run('plan', ['-f', write('broken.yaml', 'projects:\n  - name: [shop\n')]);
  t.is(syntax.code, 1);
  t.regex(syntax.err, /^broken\.yaml:\d+:\d+ /m);
  const page = await run('plan', [
    '-f',
    write('page.yaml', FILE.replace('monitors: [checkout-api] }', 'monitors: [nope] }')),
  ]);
  t.regex(page.err, /projects\[0\]\.status_pages\[0\]\.groups\[0\]\.monitors\[0\]: no monitor "nope" in shop/);
  t.is(readFileSync(file, 'utf8').length > 0, true);
});

test("the README's example applies as it is", async (t) => {
  const { run, write } = await setup(t);
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const example = /```yaml\n(# yaml-language-server[\s\S]*?)```/.exec(readme)![1]!;
  const file = write('readme.yaml', example);
  const env = { SLACK_WEBHOOK_URL: SLACK };
  const applied = await run('apply', ['-f', file], env);
  t.is(applied.code, 0, applied.err);
  t.is((await run('plan', ['-f', file], env)).code, 0);
});

test('a hand-made monitor of the same name is adopted: plan shows the mark and the fields that differ', async (t) => {
  const { server, token, run, write } = await setup(t);
  const made = await api(server.url, 'POST', '/v1/projects', { token, body: { name: 'shop' } });
  const hand = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: made.body.id, name: 'checkout-api', url: 'https://shop.example.com/healthz' },
  });
  t.is(hand.status, 201);
  const file = write(
    'adopt.yaml',
    'projects:\n  - name: shop\n    monitors:\n' +
      '      - { name: checkout-api, url: "https://shop.example.com/healthz", interval_seconds: 30 }\n',
  );
  const plan = await run('plan', ['-f', file]);
  t.is(
    plan.out,
    '  ~ monitor "checkout-api" in shop\n      interval_seconds: 60 → 30\n' +
      '      managed_by: (unset) → "config-file"\n\nPlan: 0 to create, 1 to change, 0 to replace, 0 to delete.\n',
  );
  t.is((await run('apply', ['-f', file])).code, 0);
  const after = await api(server.url, 'GET', `/v1/monitors/${hand.body.id}`, { token });
  t.like(after.body, { interval_seconds: 30, managed_by: 'config-file' });
  t.is((await run('plan', ['-f', file])).code, 0);
});

test('a JSON file is read as well, its faults placed the same way', async (t) => {
  const { run, write } = await setup(t);
  const json = {
    $schema: './schemas/watchlog-config.schema.json',
    projects: [{ name: 'shop', monitors: [{ name: 'api', url: 'https://shop.example.com/h', interval_seconds: 30 }] }],
  };
  const good = write('watchlog.json', JSON.stringify(json, null, 2));
  t.is((await run('apply', ['-f', good])).code, 0);
  t.is((await run('plan', ['-f', good])).code, 0);
  const bad = write(
    'bad.json',
    JSON.stringify(json, null, 2).replace('"interval_seconds": 30', '"interval_seconds": 3'),
  );
  const plan = await run('plan', ['-f', bad]);
  t.is(plan.code, 1);
  t.regex(plan.err, /^bad\.json:10:31 projects\[0\]\.monitors\[0\]\.interval_seconds: must be an integer from 10/m);
});

test('--prune deletes the channel, status page and window the file dropped, never ones made by hand', async (t) => {
  const { server, token, run, write } = await setup(t);
  t.is((await run('apply', ['-f', write('watchlog.yaml', FILE)])).code, 0);
  const shop = (
    (await api(server.url, 'GET', '/v1/projects', { token })).body as Array<{ id: string; name: string }>
  ).find((p) => p.name === 'shop')!;
  const q = `?project_id=${shop.id}`;
  const made = await Promise.all([
    api(server.url, 'POST', '/v1/channels', {
      token,
      body: { project_id: shop.id, name: 'by-hand', type: 'slack', url: 'https://hooks.slack.com/services/T1/B1/x' },
    }),
    api(server.url, 'POST', '/v1/status-pages', { token, body: { project_id: shop.id, slug: 'by-hand', title: 'H' } }),
    api(server.url, 'POST', '/v1/maintenances', {
      token,
      body: {
        project_id: shop.id,
        title: 'By hand',
        monitor_ids: 'all',
        starts_at: '2026-01-04T02:00:00Z',
        ends_at: '2026-01-04T03:00:00Z',
      },
    }),
  ]);
  t.deepEqual(
    made.map((r) => [r.status, 'managed_by' in r.body]),
    [
      [201, false],
      [201, false],
      [201, false],
    ],
  );
  // What apply made is answered with its mark.
  const channels = (await api(server.url, 'GET', `/v1/channels${q}`, { token })).body as Array<Record<string, string>>;
  t.regex(channels.find((c) => c.name === 'ops')!.managed_by!, /^config-file secrets:/);
  const pages = (await api(server.url, 'GET', `/v1/status-pages${q}`, { token })).body as Array<Record<string, string>>;
  t.is(pages.find((p) => p.slug === 'shop-status')!.managed_by, 'config-file');

  const dropped = write('dropped.yaml', FILE.replace(/ {4}channels:[\s\S]*?(?= {4}masking:)/, ''));
  t.is((await run('plan', ['-f', dropped])).code, 0);
  const plan = await run('plan', ['-f', dropped, '--prune']);
  t.is(plan.code, 2, plan.err);
  t.regex(plan.out, /- channel "ops" in shop \(made by the file, no longer in it\)/);
  t.regex(plan.out, /- status page "shop-status" in shop \(made by the file/);
  t.regex(plan.out, /- maintenance "Weekly database upkeep" in shop \(made by the file/);
  t.regex(plan.out, /Plan: 0 to create, 0 to change, 0 to replace, 3 to delete\./);
  t.false(plan.out.includes('by-hand') || plan.out.includes('By hand'));
  t.is((await run('apply', ['-f', dropped, '--prune'])).code, 0);
  const names = async (path: string, key: string) =>
    ((await api(server.url, 'GET', `${path}${q}`, { token })).body as Array<Record<string, string>>).map((i) => i[key]);
  t.deepEqual(await names('/v1/channels', 'name'), ['by-hand']);
  t.deepEqual(await names('/v1/status-pages', 'slug'), ['by-hand']);
  t.deepEqual(await names('/v1/maintenances', 'title'), ['By hand']);
});

test("a channel's changed URL shows as (sensitive) and replaces the channel", async (t) => {
  const { run, write } = await setup(t);
  const file = write('watchlog.yaml', FILE);
  t.is((await run('apply', ['-f', file])).code, 0);
  const moved = { SLACK_URL: 'https://hooks.slack.com/services/T000/B000/rotated-value' };
  const plan = await run('plan', ['-f', file], moved);
  t.is(plan.code, 2, plan.err);
  t.is(
    plan.out,
    '  -/+ channel "ops" in shop (its destination and secrets cannot change in place)\n' +
      '      url: (sensitive) → (sensitive)\n\nPlan: 0 to create, 0 to change, 1 to replace, 0 to delete.\n',
  );
  const applied = await run('apply', ['-f', file], moved);
  t.is(applied.code, 0, applied.err);
  for (const text of [plan.out, applied.out, applied.err]) t.false(text.includes('rotated-value'));
  t.is((await run('plan', ['-f', file], moved)).code, 0);
  t.is((await run('plan', ['-f', file])).code, 2);
});

test('a hand-made channel, page and window of the names in the file are adopted with the mark', async (t) => {
  const { server, token, run, write } = await setup(t);
  const shop = await api(server.url, 'POST', '/v1/projects', { token, body: { name: 'shop' } });
  const body = { project_id: shop.body.id };
  await api(server.url, 'POST', '/v1/channels', { token, body: { ...body, name: 'ops', type: 'slack', url: SLACK } });
  await api(server.url, 'POST', '/v1/status-pages', { token, body: { ...body, slug: 'status', title: 'Shop' } });
  const window = { starts_at: '2026-01-04T02:00:00.000Z', ends_at: '2026-01-04T03:00:00.000Z' };
  await api(server.url, 'POST', '/v1/maintenances', {
    token,
    body: { ...body, title: 'Upkeep', monitor_ids: 'all', ...window },
  });
  const file = write(
    'adopt.yaml',
    `projects:\n  - name: shop\n    channels:\n      - { name: ops, type: slack, url: "\${SLACK_URL}" }\n` +
      '    status_pages:\n      - { slug: status, title: Shop }\n' +
      `    maintenance:\n      - { title: Upkeep, monitors: all,\n` +
      `          starts_at: "${window.starts_at}", ends_at: "${window.ends_at}" }\n`,
  );
  const plan = await run('plan', ['-f', file]);
  t.is(
    plan.out,
    '  ~ channel "ops" in shop\n      managed_by: (unset) → "config-file"\n' +
      '  ~ status page "status" in shop\n      managed_by: (unset) → "config-file"\n' +
      '  ~ maintenance "Upkeep" in shop\n      managed_by: (unset) → "config-file"\n\n' +
      'Plan: 0 to create, 3 to change, 0 to replace, 0 to delete.\n',
  );
  t.is((await run('apply', ['-f', file])).code, 0);
  t.is((await run('plan', ['-f', file])).code, 0);
  const windows = await api(server.url, 'GET', `/v1/maintenances?project_id=${shop.body.id}`, { token });
  t.like(windows.body[0], { title: 'Upkeep', managed_by: 'config-file', schedule: { kind: 'once' } });
});
