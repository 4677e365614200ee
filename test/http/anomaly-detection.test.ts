import test, { type ExecutionContext } from 'ava';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import {
  afterScans,
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  tempDir,
  type TestServer,
} from '../helpers/server.ts';

/** The anomaly scan end to end: events ingested over HTTP, the projections, the Agenda job
 *  (every 200 ms here), the command, and the alerts read back from /v1/audit/anomalies. The
 *  service clock stamps ingested events; the scan has a clock of its own, held back while a burst
 *  is ingested and then moved past it, so what a scan sees is exact. */

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const SECRET = 'alerts-webhook-secret';

class Clock {
  constructor(public ms: number) {}
  readonly now = () => new Date(this.ms);
}

interface Detector {
  server: TestServer;
  token: string;
  projectId: string;
  apiKey: string;
  ingestClock: Clock;
  scanClock: Clock;
}

const startDetector = async (
  t: ExecutionContext,
  options: { dataDir?: string; notifications?: boolean } = {},
): Promise<Detector> => {
  const ingestClock = new Clock(T0);
  const scanClock = new Clock(T0 - 3_600_000);
  const server = await startTestServer({
    ...options,
    jobs: true,
    anomalyScanMs: 200,
    now: ingestClock.now,
    scanNow: scanClock.now,
  });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token, 'watched');
  return { server, token, projectId, apiKey, ingestClock, scanClock };
};

/** Posts events one after another, moving the service clock `stepMs` after each. */
const ingest = async (d: Detector, t: ExecutionContext, count: number, event: Record<string, unknown>, stepMs = 0) => {
  for (let i = 0; i < count; i++) {
    const res = await api(d.server.url, 'POST', '/v1/audit', { apiKey: d.apiKey, body: sampleEvent(event) });
    t.is(res.status, 202);
    d.ingestClock.ms += stepMs;
  }
};

interface AlertItem {
  id: string;
  open: boolean;
  event_type: string;
  path: string;
  identifier: string;
  method: string;
  service_name: string;
  environment: string;
  timestamp: string;
  project_id: string;
  request_body: Record<string, unknown>;
}

const alerts = async (d: Detector, rule?: string): Promise<AlertItem[]> => {
  const res = await api<{ data: AlertItem[] }>(
    d.server.url,
    'GET',
    `/v1/audit/anomalies?project_id=${d.projectId}&limit=100${rule ? `&rule=${rule}` : ''}`,
    { token: d.token },
  );
  if (res.status !== 200) throw new Error(`anomalies: ${res.status}`);
  return res.body.data;
};

/** Waits for the first alert, then lets several more scans run while the condition still holds:
 *  there must still be exactly one. */
const exactlyOneAlert = async (d: Detector, t: ExecutionContext, rule: string): Promise<AlertItem> => {
  await eventually(async () => ((await alerts(d)).length > 0 ? true : undefined), 15_000);
  await afterScans(d.server, 3);
  const all = await alerts(d);
  t.deepEqual(
    all.map((a) => a.path),
    [rule],
    `exactly one ${rule} alert and nothing else`,
  );
  return all[0]!;
};

test.serial(
  'brute_force: 12 × 401 for one identifier in 30 s is one alert; ' +
    'no repeat while it holds, nor after a restart; again only after it cleared',
  async (t) => {
    const dataDir = tempDir();
    const d = await startDetector(t, { dataDir });
    await ingest(
      d,
      t,
      12,
      { identifier: 'mallory', service_name: 'auth', path: '/login', status_code: 401, environment: 'staging' },
      2500,
    );
    await ingest(d, t, 9, { identifier: 'alice', service_name: 'auth', path: '/login', status_code: 401 }, 100);
    // Enough successes that the 21 failures stay under error_rate's 25 %.
    await ingest(d, t, 70, {
      identifier: 'mallory',
      service_name: 'auth',
      path: '/me',
      method: 'GET',
      status_code: 200,
    });
    d.scanClock.ms = T0 + 31_000;
    const alert = await exactlyOneAlert(d, t, 'brute_force');
    t.like(alert, {
      open: true,
      event_type: 'system.alert',
      path: 'brute_force',
      identifier: 'system',
      method: 'POST',
      service_name: 'auth',
      environment: 'staging',
      project_id: d.projectId,
      timestamp: new Date(T0 + 31_000).toISOString(),
    });
    t.deepEqual(alert.request_body, { identifier: 'mallory', count: 12, window_secs: 60, threshold: 10 });

    // It is an audit event like any other: listed with event_type, in the export, by id.
    const listed = await api(d.server.url, 'GET', `/v1/audit?event_type=system.alert&project_id=${d.projectId}`, {
      token: d.token,
    });
    t.deepEqual(
      listed.body.data.map((e: { id: string }) => e.id),
      [alert.id],
    );
    const exported = await api(
      d.server.url,
      'GET',
      `/v1/audit/export?format=json&event_type=system.alert&project_id=${d.projectId}`,
      { token: d.token },
    );
    t.deepEqual(
      exported.body.map((e: { id: string; request_body: unknown }) => [e.id, e.request_body]),
      [[alert.id, alert.request_body]],
    );
    t.is((await api(d.server.url, 'GET', `/v1/audit/${alert.id}`, { token: d.token })).body.path, 'brute_force');

    // A restart derives the open alert from the log: the condition still holds, nothing new.
    await d.server.stop({ remove: false });
    const again = await startTestServer({
      dataDir,
      jobs: true,
      anomalyScanMs: 200,
      now: d.ingestClock.now,
      scanNow: d.scanClock.now,
    });
    t.teardown(() => again.stop());
    const restarted = { ...d, server: again };
    await afterScans(again, 5);
    t.deepEqual(
      (await alerts(restarted)).map((a) => a.id),
      [alert.id],
    );

    // Five minutes on the window is empty: the alert clears, and a new burst raises a new one.
    d.scanClock.ms = T0 + 300_000;
    await eventually(async () =>
      (await again.runtime.readModels.anomalies.openAlerts()).length === 0 ? true : undefined,
    );
    d.ingestClock.ms = T0 + 310_000;
    await ingest(restarted, t, 10, { identifier: 'mallory', service_name: 'auth', status_code: 401 }, 1000);
    d.scanClock.ms = T0 + 321_000;
    await eventually(async () => ((await alerts(restarted)).length === 2 ? true : undefined));
    await afterScans(again, 3);
    const both = await alerts(restarted);
    t.deepEqual(
      both.map((a) => a.open),
      [true, false],
      'the new alert is open, the cleared one is not',
    );
    t.deepEqual(both[0]!.request_body, { identifier: 'mallory', count: 10, window_secs: 60, threshold: 10 });
  },
);

test.serial('mass_delete: 60 DELETEs in a service is one alert; 49 in another is none', async (t) => {
  const d = await startDetector(t);
  await ingest(d, t, 60, { service_name: 'files', method: 'DELETE', path: '/files/1', status_code: 204 }, 100);
  await ingest(d, t, 49, { service_name: 'photos', method: 'DELETE', path: '/photos/1', status_code: 204 }, 100);
  d.scanClock.ms = d.ingestClock.ms + 1000;
  const alert = await exactlyOneAlert(d, t, 'mass_delete');
  t.is(alert.service_name, 'files');
  t.deepEqual(alert.request_body, { count: 60, threshold: 50, window_secs: 60 });
});

test.serial('error_rate: 40 % errors over the window is one alert; a service at 20 % is none', async (t) => {
  const d = await startDetector(t);
  await ingest(d, t, 30, { service_name: 'billing', status_code: 200 }, 1000);
  await ingest(d, t, 10, { service_name: 'billing', status_code: 500 }, 1000);
  await ingest(d, t, 10, { service_name: 'billing', status_code: 404 }, 1000);
  await ingest(d, t, 40, { service_name: 'search', status_code: 200 }, 100);
  await ingest(d, t, 10, { service_name: 'search', status_code: 503 }, 100);
  d.scanClock.ms = d.ingestClock.ms + 1000;
  const alert = await exactlyOneAlert(d, t, 'error_rate');
  t.is(alert.service_name, 'billing');
  t.deepEqual(alert.request_body, { error_rate: 40, threshold: 25, errors: 20, total: 50, window_secs: 300 });
});

test.serial('volume_spike: an hour of 10 events a minute, then 60 in a minute, is one alert', async (t) => {
  const d = await startDetector(t);
  // The baseline: 10 events in the first 10 seconds of each of the 60 minutes before T0.
  for (let minute = 60; minute >= 1; minute--) {
    d.ingestClock.ms = T0 - minute * 60_000;
    await ingest(d, t, 10, { service_name: 'catalog', method: 'GET', status_code: 200 }, 1000);
  }
  d.ingestClock.ms = T0;
  await ingest(d, t, 60, { service_name: 'catalog', method: 'GET', status_code: 200 }, 50);
  d.scanClock.ms = T0 + 6000;
  const alert = await exactlyOneAlert(d, t, 'volume_spike');
  t.is(alert.service_name, 'catalog');
  // The baseline is the 59 minutes from the first one with events to the minute before the
  // current window: 10 a minute, no spread but the floor of √10, so z = (60 − 10) / √10.
  t.deepEqual(alert.request_body, { current_rate: 60, baseline_mean: 10, z_score: 15.81, threshold: 3 });
});

test.serial(
  'silent_service: a service that goes quiet for more than 15 minutes is one alert, cleared when it speaks again',
  async (t) => {
    const d = await startDetector(t);
    await ingest(d, t, 12, { service_name: 'cron', path: '/tick' });
    await ingest(d, t, 5, { service_name: 'rarely', path: '/tick' });
    d.scanClock.ms = T0 + 15 * 60_000;
    await afterScans(d.server, 3);
    t.deepEqual(await alerts(d), [], '15:00 of silence is not more than 15 minutes');
    d.scanClock.ms = T0 + 16 * 60_000;
    const alert = await exactlyOneAlert(d, t, 'silent_service');
    t.is(alert.service_name, 'cron');
    t.deepEqual(alert.request_body, {
      silence_minutes: 16,
      threshold_minutes: 15,
      last_event_at: new Date(T0).toISOString(),
    });
    d.scanClock.ms = T0 + 40 * 60_000;
    await afterScans(d.server, 3);
    t.is((await alerts(d)).length, 1, 'still silent: still one alert');
    d.ingestClock.ms = T0 + 41 * 60_000;
    await ingest(d, t, 1, { service_name: 'cron', path: '/tick' });
    d.scanClock.ms = T0 + 41 * 60_000 + 1000;
    await eventually(async () =>
      (await d.server.runtime.readModels.anomalies.openAlerts()).length === 0 ? true : undefined,
    );
    t.like(await alerts(d), [{ id: alert.id, open: false }]);
  },
);

test.serial('project settings change what fires: a lower threshold raises, a disabled rule does not', async (t) => {
  const d = await startDetector(t);
  const put = await api(d.server.url, 'PUT', `/v1/projects/${d.projectId}/anomaly-settings`, {
    token: d.token,
    body: { brute_force: { threshold: 3, window_secs: 30 }, mass_delete: { enabled: false } },
  });
  t.is(put.status, 200);
  await ingest(d, t, 3, { identifier: 'eve', status_code: 401 }, 1000);
  await ingest(d, t, 80, { method: 'DELETE', status_code: 204 });
  d.scanClock.ms = d.ingestClock.ms + 1000;
  const alert = await exactlyOneAlert(d, t, 'brute_force');
  t.deepEqual(alert.request_body, { identifier: 'eve', count: 3, window_secs: 30, threshold: 3 });
});

test.serial(
  'alerts reach the channels that opted in to them, once, signed; healthcheck-only channels get none',
  async (t) => {
    const d = await startDetector(t, { notifications: true });
    const alertsHook = await webhookReceiver(SECRET);
    const monitorsHook = await webhookReceiver(SECRET);
    t.teardown(async () => {
      await alertsHook.close();
      await monitorsHook.close();
    });
    for (const [hook, events] of [
      [alertsHook, ['healthcheck', 'alert']],
      [monitorsHook, ['healthcheck']],
    ] as const) {
      const res = await api(d.server.url, 'POST', '/v1/channels', {
        token: d.token,
        body: { project_id: d.projectId, type: 'webhook', url: hook.url, secret: SECRET, events },
      });
      t.is(res.status, 201);
    }
    d.ingestClock.ms = Date.now();
    // A sign-in's session ends on the service clock, which has just moved months on.
    d.token = await login(d.server.url);
    await ingest(d, t, 10, { identifier: 'mallory', status_code: 401 }, 500);
    d.scanClock.ms = d.ingestClock.ms + 1000;
    const alert = await exactlyOneAlert(d, t, 'brute_force');
    await eventually(async () => (alertsHook.received.length > 0 ? true : undefined));
    await afterScans(d.server, 3);
    t.is(alertsHook.received.length, 1);
    const [got] = alertsHook.received;
    t.true(got!.verified);
    t.is(got!.event, 'anomaly.detected');
    t.is(got!.delivery, alert.id);
    t.deepEqual(got!.body, {
      id: alert.id,
      type: 'anomaly.detected',
      project_id: d.projectId,
      rule: 'brute_force',
      service_name: 'orders',
      environment: 'production',
      subject: 'mallory',
      details: alert.request_body,
      timestamp: alert.timestamp,
      dashboard_url: null,
    });
    t.deepEqual(monitorsHook.received, []);
  },
);
