import test from 'ava';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { subscriberIdOf, subscriptionKey, subscriptionToken } from '../../src/domain/subscriber.ts';
import { totpCode } from '../../src/domain/totp.ts';
import { enrolTotp, steppingClock } from '../helpers/factors.ts';
import { ADMIN, type TestServer, api, login, startTestServer, tempDir } from '../helpers/server.ts';

/** Changing WATCHLOG_JWT_SECRET (docs/security.md#changing-the-jwt-secret): tokens signed with the
 *  old secret are refused at once; an authenticator app enrolled and a subscriber's link made under
 *  it keep working while the old secret is listed in WATCHLOG_JWT_SECRET_PREVIOUS, and not after. */

const secret = () => randomBytes(36).toString('base64');
const SUBSCRIPTIONS = {
  WATCHLOG_SMTP_HOST: '127.0.0.1',
  WATCHLOG_SMTP_FROM: 'status@example.com',
  WATCHLOG_PUBLIC_URL: 'https://status.example.com',
};

/** A logger whose warnings the test reads. */
const capturing = () => {
  const lines: Array<{ msg: string; user_id?: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { msg: string; user_id?: string });
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
};

const signInWithCode = async (server: TestServer, code: string) => {
  const first = await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN });
  if (first.body.challenge_token === undefined) throw new Error(`no challenge: ${JSON.stringify(first.body)}`);
  return api(server.url, 'POST', '/v1/auth/second-factor', {
    body: { challenge_token: first.body.challenge_token, totp_code: code },
  });
};

test(
  'after a change of the JWT secret, old tokens are refused; ' +
    'apps and links made under it work while it is listed as previous',
  async (t) => {
    const dataDir = tempDir();
    const clock = steppingClock();
    // Each server in turn on one data dir, kept between them.
    const running = new Set<TestServer>();
    const start = async (options: Parameters<typeof startTestServer>[0]) => {
      const server = await startTestServer({ dataDir, now: clock.now, ...options });
      running.add(server);
      return server;
    };
    const stop = async (server: TestServer) => {
      running.delete(server);
      await server.stop({ remove: false });
    };
    t.teardown(async () => {
      for (const server of running) await server.stop({ remove: false });
      rmSync(dataDir, { recursive: true, force: true });
    });
    const [oldSecret, newSecret, olderStill] = [secret(), secret(), secret()];

    const before = await start({
      env: { ...SUBSCRIPTIONS, WATCHLOG_JWT_SECRET: oldSecret },
    });
    const oldToken = await login(before.url);
    const { secret: app } = await enrolTotp(before, oldToken, clock);
    const project = await api(before.url, 'POST', '/v1/projects', { token: oldToken, body: { name: 'status' } });
    const page = await api(before.url, 'POST', '/v1/status-pages', {
      token: oldToken,
      body: { project_id: project.body.id, slug: 'acme', title: 'Acme', published: true, groups: [] },
    });
    t.is(page.status, 201, JSON.stringify(page.body));
    t.is((await api(before.url, 'POST', '/status/acme/subscribe', { body: { email: 'ada@example.com' } })).status, 202);
    const subscriber = subscriberIdOf(page.body.id, 'ada@example.com');
    const link = `/status/acme/subscription/confirm?id=${subscriber}&token=${subscriptionToken(
      subscriptionKey(oldSecret),
      'confirm',
      subscriber,
    )}`;
    t.is((await api(before.url, 'GET', link)).status, 200);
    await stop(before);

    // The new secret alone: nothing made under the old one works, and the log says why for the app.
    clock.step();
    const { logger, lines } = capturing();
    const alone = await start({ logger, env: { ...SUBSCRIPTIONS, WATCHLOG_JWT_SECRET: newSecret } });
    t.is((await api(alone.url, 'GET', '/v1/auth/me', { token: oldToken })).status, 401);
    t.is((await signInWithCode(alone, totpCode(app, clock.at()))).status, 401);
    const me = lines.find((l) => /does not unseal/.test(l.msg));
    t.truthy(me, JSON.stringify(lines));
    t.regex(me!.user_id ?? '', /.+/);
    t.is((await api(alone.url, 'GET', link)).status, 404);
    await stop(alone);

    // The old secret listed as previous (behind another): the app and the link work, old tokens do not.
    clock.step();
    const rotated = await start({
      env: {
        ...SUBSCRIPTIONS,
        WATCHLOG_JWT_SECRET: newSecret,
        WATCHLOG_JWT_SECRET_PREVIOUS: `${olderStill},${oldSecret}`,
      },
    });
    t.is((await api(rotated.url, 'GET', '/v1/auth/me', { token: oldToken })).status, 401);
    const signedIn = await signInWithCode(rotated, totpCode(app, clock.at()));
    t.is(signedIn.status, 200, JSON.stringify(signedIn.body));
    t.is((await api(rotated.url, 'GET', '/v1/auth/me', { token: signedIn.body.token })).status, 200);
    t.is((await api(rotated.url, 'GET', link)).status, 200);
  },
);

test('WATCHLOG_JWT_SECRET_PREVIOUS takes only secrets of at least 32 characters', async (t) => {
  const error = await t.throwsAsync(
    startTestServer({ env: { WATCHLOG_JWT_SECRET: secret(), WATCHLOG_JWT_SECRET_PREVIOUS: `${secret()},short` } }),
  );
  t.regex(error.message, /WATCHLOG_JWT_SECRET_PREVIOUS/);
  t.notRegex(error.message, /short/, 'the value of a secret is never repeated');
});
