import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { freePort } from './process.ts';
import { login, startTestServer } from './server.ts';

/** web-push-testing's server on 127.0.0.1 only, handing out endpoints on 127.0.0.1 (its own
 *  start listens on every interface and names itself localhost). A process of its own: its
 *  request handlers share one model per module. Prints a line once it listens. */
const SERVE = `
const path = require('node:path');
const [dir, port] = process.argv.slice(1);
const Server = require(path.join(dir, 'src/server.js'));
const { PushApiModel } = require(path.join(dir, 'src/PushApiModel.js'));
const model = new PushApiModel();
const service = new Server(model, Number(port));
model.notifyUrl = 'http://127.0.0.1:' + port + '/notify/';
service.setRequestHandlers();
service._app.listen(Number(port), '127.0.0.1', () => console.log('listening on 127.0.0.1:' + port));
`;

/** web-push-testing: a real push service on 127.0.0.1 that subscribes, receives, decrypts and
 *  expires like a browser vendor's would. */
export const pushService = async () => {
  const port = await freePort();
  // The package's "main" names a file it does not ship; its package.json locates it.
  const dir = path.dirname(createRequire(import.meta.url).resolve('web-push-testing/package.json'));
  const child = spawn(process.execPath, ['-e', SERVE, dir, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`web-push-testing exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const post = async (url: string, body: unknown) => {
    const res = await fetch(base + url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.text()) as string };
  };
  return { base, post, stop: () => child.kill() };
};

/** A browser's subscription at the push service, for a VAPID public key. */
export const subscribe = async (service: Awaited<ReturnType<typeof pushService>>, publicKey: string) => {
  // The service takes the flag as a string, as a form post would send it.
  const res = await service.post('/subscribe', { userVisibleOnly: 'true', applicationServerKey: publicKey });
  if (res.status !== 200) throw new Error(res.body);
  const { data } = JSON.parse(res.body) as {
    data: { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };
  };
  const messages = async () =>
    (
      JSON.parse((await service.post('/get-notifications', { clientHash: data.clientHash })).body) as {
        data: { messages: string[] };
      }
    ).data.messages;
  return { subscription: { endpoint: data.endpoint, keys: data.keys }, clientHash: data.clientHash, messages };
};

/** A test server that sends notifications, a push service beside it, both stopped at teardown,
 *  and the admin's token. */
export const serverWithPushService = async (t: ExecutionContext) => {
  const server = await startTestServer({ notifications: true });
  const service = await pushService();
  t.teardown(async () => {
    await server.stop();
    service.stop();
  });
  return { server, service, token: await login(server.url) };
};
