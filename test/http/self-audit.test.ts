import test from 'ava';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { ADMIN, afterScans, api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';

/** watchlog audits itself: logins, exports and changes made through it are system.access events
 *  of the built-in project, which admins and auditors see, members do not, and brute_force
 *  watches. */

interface AccessRow {
  id: string;
  event_type: string;
  method: string;
  path: string;
  status_code: number | null;
  identifier: string;
  service_name: string;
  project_id: string;
  timestamp: string;
}

const accessPath = `/v1/audit?project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&limit=100&sort_order=asc`;

test(
  'logins, changes and exports are system.access events of the built-in project, ' +
    'listed and exported like any other',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    t.is(
      (
        await api(server.url, 'POST', '/v1/auth/login', {
          body: { email: ADMIN.email, password: 'not the password' },
          headers: { 'user-agent': 'curious/1.0' },
        })
      ).status,
      401,
    );

    const { projectId, keyId } = await projectWithKey(server.url, admin, 'shop');
    t.is(
      (await api(server.url, 'DELETE', `/v1/projects/${projectId}/api-keys/${keyId}`, { token: admin })).status,
      204,
    );
    const member = await api(server.url, 'POST', '/v1/users', {
      token: admin,
      body: { email: 'mo@example.com', password: 'a member password', role: 'member', project_ids: [] },
    });
    t.is(member.status, 201);
    t.is(
      (
        await api(server.url, 'PUT', `/v1/users/${member.body.id}`, {
          token: admin,
          body: { project_ids: [projectId] },
        })
      ).status,
      200,
    );
    const channel = await api(server.url, 'POST', '/v1/channels', {
      token: admin,
      body: { project_id: projectId, type: 'webhook', url: 'http://127.0.0.1:9/hook', secret: 'a webhook secret' },
    });
    t.is(channel.status, 201);
    t.is(
      (
        await api(server.url, 'PUT', `/v1/projects/${projectId}/anomaly-settings`, {
          token: admin,
          body: { brute_force: { threshold: 5 } },
        })
      ).status,
      200,
    );
    t.is(
      (
        await api(server.url, 'PUT', `/v1/projects/${projectId}/masking`, {
          token: admin,
          body: { keys: ['session'], patterns: [] },
        })
      ).status,
      200,
    );
    const exported = await api(
      server.url,
      'GET',
      `/v1/audit/export?format=json&project_id=${projectId}&method=DELETE`,
      {
        token: admin,
      },
    );
    t.is(exported.status, 200);

    const rows = await eventually(async () => {
      const res = await api<{ data: AccessRow[] }>(server.url, 'GET', accessPath, { token: admin });
      return res.body.data.some((r) => r.path === '/v1/audit/export') ? res.body.data : undefined;
    });
    t.true(
      rows.every(
        (r) =>
          r.project_id === WATCHLOG_PROJECT_ID && r.event_type === 'system.access' && r.service_name === 'watchlog',
      ),
    );
    const detail = async (row: AccessRow | undefined) =>
      (await api(server.url, 'GET', `/v1/audit/${row!.id}`, { token: admin })).body;
    const actions = await Promise.all(rows.map(async (r) => (await detail(r)).request_body.action as string));
    t.deepEqual(actions, [
      'user.registered',
      'login',
      'login',
      'project.created',
      'api_key.issued',
      'api_key.revoked',
      'user.registered',
      'user.access_changed',
      'channel.created',
      'anomaly_settings.updated',
      'masking.set',
      'export',
    ]);

    const failed = await detail(rows[2]);
    t.like(failed, {
      method: 'POST',
      path: '/v1/auth/login',
      status_code: 401,
      identifier: ADMIN.email,
      ip: '127.0.0.1',
      user_agent: 'curious/1.0',
    });
    t.deepEqual(failed.request_body, { action: 'login', ok: false, reason: 'wrong_credentials' });
    const bootstrap = await detail(rows[0]);
    t.like(bootstrap, { identifier: 'system:bootstrap', status_code: 201, path: '/v1/users' });
    t.is(bootstrap.request_body.email, ADMIN.email);
    const change = await detail(rows[7]);
    t.regex(change.identifier, /^user:/);
    t.deepEqual(change.request_body, {
      action: 'user.access_changed',
      user_id: member.body.id,
      role: 'member',
      project_ids: [projectId],
    });
    const created = await detail(rows[8]);
    t.false(JSON.stringify(created).includes('a webhook secret'), 'a channel row never shows its secret');
    const exportRow = await detail(rows[11]);
    t.like(exportRow, { method: 'GET', status_code: 200, ip: '127.0.0.1' });
    t.deepEqual(exportRow.request_body, {
      action: 'export',
      format: 'json',
      filters: { project_id: projectId, method: 'DELETE' },
      rows: 0,
    });
    t.false(JSON.stringify(await Promise.all(rows.map(detail))).includes('scrypt$'), 'no password hash in any row');

    // Exported like any other event; the export of it is recorded in turn.
    const again = await api(
      server.url,
      'GET',
      `/v1/audit/export?format=json&project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access`,
      { token: admin },
    );
    t.true((again.body as Array<{ id: string }>).length >= rows.length);
  },
);

test('admins and auditors see the built-in project; members do not', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const { projectId } = await projectWithKey(server.url, admin, 'theirs');
  for (const [email, role, projects] of [
    ['aud@example.com', 'auditor', []],
    ['mem@example.com', 'member', [projectId]],
  ] as const) {
    t.is(
      (
        await api(server.url, 'POST', '/v1/users', {
          token: admin,
          body: { email, password: `${email}-password`, role, project_ids: projects },
        })
      ).status,
      201,
    );
  }
  const auditor = await login(server.url, 'aud@example.com', 'aud@example.com-password');
  const member = await login(server.url, 'mem@example.com', 'mem@example.com-password');
  const names = async (token: string) =>
    ((await api(server.url, 'GET', '/v1/projects', { token })).body as Array<{ name: string }>)
      .map((p) => p.name)
      .sort();
  t.deepEqual(await names(admin), ['theirs', 'watchlog']);
  t.deepEqual(await names(auditor), ['watchlog']);
  t.deepEqual(await names(member), ['theirs']);
  const seen = await eventually(async () => {
    const res = await api<{ data: AccessRow[] }>(server.url, 'GET', accessPath, { token: auditor });
    return res.body.data.some((r) => r.identifier === 'mem@example.com') ? res : undefined;
  });
  t.is(seen.status, 200);
  t.is((await api(server.url, 'GET', accessPath, { token: member })).status, 404);
  t.is((await api(server.url, 'GET', `/v1/projects/${WATCHLOG_PROJECT_ID}`, { token: member })).status, 404);
});

test(
  'guessing at a watchlog account raises brute_force in the built-in project, ' + 'throttled attempts included',
  async (t) => {
    const server = await startTestServer({ jobs: true });
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(
        (
          await api(server.url, 'POST', '/v1/auth/login', {
            body: { email: 'victim@example.com', password: `guess-${i}` },
          })
        ).status,
      );
    }
    t.true(
      statuses.includes(401) && statuses.includes(429),
      `both wrong passwords and throttled guesses: ${statuses.join(' ')}`,
    );
    const alert = await eventually(async () => {
      await afterScans(server, 1);
      const res = await api<{
        data: Array<{ path: string; request_body: Record<string, unknown>; service_name: string }>;
      }>(server.url, 'GET', `/v1/audit/anomalies?project_id=${WATCHLOG_PROJECT_ID}&rule=brute_force`, { token: admin });
      return res.body.data[0];
    }, 20_000);
    t.like(alert, { path: 'brute_force', service_name: 'watchlog' });
    // The count is what the scan saw when it fired: at least the threshold (10), at most every guess;
    // on a loaded machine a scan can come between the 11th and the 12th.
    t.like(alert.request_body, { identifier: 'victim@example.com' });
    const count = alert.request_body.count as number;
    t.true(count >= 10 && count <= 12, `count ${count}`);
  },
);
