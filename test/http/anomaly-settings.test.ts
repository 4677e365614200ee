import test from 'ava';
import { api, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let token: string;
let projectId: string;
let other: string;

test.before(async () => {
  // A deployment that changed one default: projects start from it.
  server = await startTestServer({ env: { WATCHLOG_ANOMALY_DEFAULTS: '{"mass_delete":{"threshold":100}}' } });
  token = await login(server.url);
  projectId = (await projectWithKey(server.url, token, 'tuned')).projectId;
  other = (await projectWithKey(server.url, token, 'other')).projectId;
});
test.after.always(() => server.stop());

const settingsPath = (id: string) => `/v1/projects/${id}/anomaly-settings`;

test('GET: every rule with its fields, from the deployment defaults until the project changes them', async (t) => {
  const res = await api(server.url, 'GET', settingsPath(other), { token });
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    project_id: other,
    volume_spike: { enabled: true, z_threshold: 3, baseline_minutes: 60, min_baseline_minutes: 30, min_rate: 20 },
    error_rate: { enabled: true, threshold_percent: 25, window_secs: 300, min_events: 20 },
    brute_force: { enabled: true, threshold: 10, window_secs: 60 },
    mass_delete: { enabled: true, threshold: 100, window_secs: 60 },
    silent_service: { enabled: true, threshold_minutes: 15, min_events_24h: 10 },
    updated_at: null,
  });
});

test(
  'PUT: a partial update, read back at once; ' + 'null puts a field back to the default; other projects unchanged',
  async (t) => {
    const put = await api(server.url, 'PUT', settingsPath(projectId), {
      token,
      body: { brute_force: { threshold: 5, window_secs: 30 }, silent_service: { enabled: false } },
    });
    t.is(put.status, 200);
    t.deepEqual(put.body.brute_force, { enabled: true, threshold: 5, window_secs: 30 });
    t.false(put.body.silent_service.enabled);
    t.truthy(put.body.updated_at);
    const read = await api(server.url, 'GET', settingsPath(projectId), { token });
    t.deepEqual(read.body, put.body);
    const reset = await api(server.url, 'PUT', settingsPath(projectId), {
      token,
      body: { brute_force: { threshold: null } },
    });
    t.deepEqual(reset.body.brute_force, { enabled: true, threshold: 10, window_secs: 30 });
    t.false(reset.body.silent_service.enabled, 'fields not in the update keep their values');
    t.is((await api(server.url, 'GET', settingsPath(other), { token })).body.brute_force.threshold, 10);
    // The change is an event in the project's anomalies stream: the log is the source of truth.
    const events = await server.runtime.log.readStream(`anomalies-${projectId}`);
    t.deepEqual(
      events.map((e) => e.type),
      ['AnomalySettingsUpdated', 'AnomalySettingsUpdated'],
    );
  },
);

test('bad settings are 400 with every faulty path, and change nothing', async (t) => {
  const before = (await api(server.url, 'GET', settingsPath(other), { token })).body;
  const bad = await api(server.url, 'PUT', settingsPath(other), {
    token,
    body: {
      brute_force: { threshold: -1, window: 60 },
      error_rate: { threshold_percent: 'high' },
      volume_spike: { z_threshold: 0 },
      typo: true,
    },
  });
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'validation_error');
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'brute_force.threshold',
    'brute_force.window',
    'error_rate.threshold_percent',
    'typo',
    'volume_spike.z_threshold',
  ]);
  const inconsistent = await api(server.url, 'PUT', settingsPath(other), {
    token,
    body: { volume_spike: { baseline_minutes: 15 } },
  });
  t.is(inconsistent.status, 400);
  t.deepEqual(
    inconsistent.body.error.details.map((d: { path: string }) => d.path),
    ['volume_spike.min_baseline_minutes'],
  );
  for (const body of ['[]', 'null', '"x"', '{"__proto__":{"threshold":1}}']) {
    const res = await api(server.url, 'PUT', settingsPath(other), { token, body });
    t.is(res.status, 400, body);
  }
  const wrongType = await api(server.url, 'PUT', settingsPath(other), {
    token,
    body: 'threshold=1',
    headers: { 'content-type': 'text/plain' },
  });
  t.is(wrongType.status, 415);
  const deep = await api(server.url, 'PUT', settingsPath(other), {
    token,
    body: `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`,
  });
  t.is(deep.status, 400);
  const huge = await api(server.url, 'PUT', settingsPath(other), {
    token,
    body: JSON.stringify({ brute_force: { threshold: 5 }, pad: 'x'.repeat(2_000_000) }),
  });
  t.is(huge.status, 413);
  t.deepEqual((await api(server.url, 'GET', settingsPath(other), { token })).body, before);
});

test('unknown or invisible projects are 404; auditors read but do not change; no token is 401', async (t) => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  t.is((await api(server.url, 'GET', settingsPath(unknown), { token })).status, 404);
  t.is((await api(server.url, 'PUT', settingsPath(unknown), { token, body: {} })).status, 404);
  t.is((await api(server.url, 'GET', settingsPath('not-a-uuid'), { token })).status, 404);
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'aud@example.com', password: 'auditor-password', role: 'auditor', project_ids: [other] },
  });
  const auditor = await login(server.url, 'aud@example.com', 'auditor-password');
  t.is((await api(server.url, 'GET', settingsPath(other), { token: auditor })).status, 200);
  t.is(
    (await api(server.url, 'PUT', settingsPath(other), { token: auditor, body: { brute_force: { threshold: 3 } } }))
      .status,
    403,
  );
  t.is(
    (await api(server.url, 'GET', settingsPath(projectId), { token: auditor })).status,
    404,
    'a project the auditor cannot see',
  );
  t.is((await api(server.url, 'GET', settingsPath(other))).status, 401);
});
