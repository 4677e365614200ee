import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { verifySignature } from '../../src/domain/notification.ts';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, tempDir } from '../helpers/server.ts';
import { freePort, runCli, serviceSetup, startService, waitForLog } from '../helpers/process.ts';

/** The jobs of a real `watchlog start`: a monitor checked and a webhook notified, the anomaly
 *  scan on its schedule. */

test(
  'the real server checks a new monitor at once ' + 'and notifies a signed webhook from its projector thread',
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const received: Array<{ body: string; signature: string | undefined }> = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-watchlog-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const server = runCli(['start'], {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    });
    t.teardown(() => {
      server.child.kill('SIGKILL');
      hook.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await waitForLog(server, 'admin user created', 45_000);
    const token = await login(url);
    const { projectId } = await projectWithKey(url, token);
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    t.is(
      (
        await api(url, 'POST', '/v1/channels', {
          token,
          body: { project_id: projectId, type: 'webhook', url: hookUrl, secret: 'e2e-secret' },
        })
      ).status,
      201,
    );
    const closed = await freePort();
    await api(url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'down-from-start', url: `http://127.0.0.1:${closed}/`, timeout_seconds: 1 },
    });

    await eventually(async () => (received.length === 1 ? true : undefined), 15_000);
    const notification = JSON.parse(received[0]!.body) as { type: string; monitor: { name: string }; error: string };
    t.like(notification, { type: 'monitor.down', monitor: { name: 'down-from-start' } });
    t.regex(notification.error, /connection refused/);
    t.true(verifySignature('e2e-secret', received[0]!.body, received[0]!.signature));
    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
  },
);

test(
  'the real server runs the anomaly scan on its schedule: ' + 'a brute force is an alert, logged, within one interval',
  async (t) => {
    const { url, env } = await serviceSetup(t, {
      WATCHLOG_ANOMALY_SCAN_SECONDS: '5',
      WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":5}}',
    });
    const server = await startService(t, env);
    const token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    for (let i = 0; i < 5; i++) {
      t.is(
        (
          await api(url, 'POST', '/v1/audit', {
            apiKey,
            body: sampleEvent({ identifier: 'mallory', status_code: 401 }),
          })
        ).status,
        202,
      );
    }
    const alert = await eventually(async () => {
      const r = await api(url, 'GET', `/v1/audit/anomalies?project_id=${projectId}`, { token });
      return r.body.data.length > 0 ? r.body.data[0] : undefined;
    }, 20_000);
    t.like(alert, {
      path: 'brute_force',
      event_type: 'system.alert',
      request_body: { identifier: 'mallory', count: 5, window_secs: 60, threshold: 5 },
    });
    const logged = await waitForLog(server, 'anomaly detected');
    t.like(logged, { project_id: projectId, rule: 'brute_force', subject: 'mallory' });
    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
  },
);
