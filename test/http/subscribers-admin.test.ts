import test from 'ava';
import { subscriberIdOf } from '../../src/domain/subscriber.ts';
import { subscriberStream } from '../../src/domain/streams.ts';
import { smtpServer } from '../helpers/smtp.ts';
import { mailSettled, subscriberMailEnv } from '../helpers/subscribers.ts';
import {
  api,
  caughtUp,
  eventually,
  login,
  projectWithKey,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

/** A status page's subscribers for its project's admins and members: the list, the removal, and
 *  the erasure of an address (it takes the subscription, and its records in the log). */

const smtpEnv = (port: number) => subscriberMailEnv(port, 'https://status.example.com', 'status@example.com');

/** Subscribes each address and confirms it through its message's link. */
const subscribed = async (
  server: TestServer,
  smtp: Awaited<ReturnType<typeof smtpServer>>,
  slug: string,
  emails: readonly string[],
) => {
  for (const email of emails) {
    const res = await api(server.url, 'POST', `/status/${slug}/subscribe`, { body: { email } });
    if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  }
  await mailSettled(server);
  for (const email of emails) {
    const mail = [...smtp.messages].reverse().find((m) => m.envelope.to.includes(email))!.mail;
    const link = /https:\/\/status\.example\.com(\S+subscription\/confirm\S+)/.exec(mail.text ?? '')![1]!;
    const res = await fetch(server.url + link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (res.status !== 200) throw new Error(`confirm: ${res.status}`);
  }
  await caughtUp(server, ['subscribers']);
};

const pageIn = async (server: TestServer, token: string, slug: string) => {
  const { projectId } = await projectWithKey(server.url, token, slug);
  const page = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: projectId, slug, title: 'Status', published: true },
  });
  return { projectId, pageId: page.body.id as string };
};

test('members and admins list and remove subscribers, auditors may not; a removed one gets nothing', async (t) => {
  const smtp = await smtpServer();
  const server = await startTestServer({ env: smtpEnv(smtp.port), notifications: true });
  t.teardown(async () => {
    await server.stop();
    await smtp.close();
  });
  const token = await login(server.url);
  const { projectId, pageId } = await pageIn(server, token, 'listed');
  await subscribed(server, smtp, 'listed', ['a@example.com', 'b@example.com']);
  await api(server.url, 'POST', '/status/listed/subscribe', { body: { email: 'c@example.com' } });
  await mailSettled(server);
  await caughtUp(server, ['subscribers']);

  const user = async (email: string, role: string) => {
    await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email, password: 'long enough password', role, project_ids: [projectId] },
    });
    return login(server.url, email, 'long enough password');
  };
  const member = await user('member@example.com', 'member');
  const auditor = await user('auditor@example.com', 'auditor');
  const base = `/v1/status-pages/${pageId}/subscribers`;
  const all = await api(server.url, 'GET', base, { token: member });
  t.is(all.status, 200);
  t.deepEqual(all.body.counts, { pending: 1, confirmed: 2, unsubscribed: 0 });
  t.deepEqual(
    all.body.data.map((s: { email: string }) => s.email),
    ['c@example.com', 'b@example.com', 'a@example.com'],
  );
  t.like(all.body.pagination, { page: 1, limit: 20, totalItems: 3 });
  const confirmed = await api(server.url, 'GET', `${base}?status=confirmed&limit=1&page=2`, { token });
  t.deepEqual(
    confirmed.body.data.map((s: { email: string }) => s.email),
    ['a@example.com'],
  );
  t.is((await api(server.url, 'GET', base, { token: auditor })).status, 403);
  t.is((await api(server.url, 'GET', `${base}?status=gone`, { token })).status, 400);

  const b = subscriberIdOf(pageId, 'b@example.com');
  t.is((await api(server.url, 'DELETE', `${base}/${b}`, { token: auditor })).status, 403);
  t.is((await api(server.url, 'DELETE', `${base}/${b}`, { token: member })).status, 204);
  t.is((await api(server.url, 'DELETE', `${base}/${b}`, { token })).status, 404);
  const { pageId: other } = await pageIn(server, token, 'elsewhere');
  const a = subscriberIdOf(pageId, 'a@example.com');
  t.is((await api(server.url, 'DELETE', `/v1/status-pages/${other}/subscribers/${a}`, { token })).status, 404);
  t.deepEqual((await api(server.url, 'GET', base, { token })).body.counts, {
    pending: 1,
    confirmed: 1,
    unsubscribed: 0,
  });

  const sent = smtp.messages.length;
  await api(server.url, 'POST', '/v1/incidents', {
    token,
    body: { project_id: projectId, title: 'Down', status: 'investigating', message: 'Looking into it.' },
  });
  await mailSettled(server);
  t.deepEqual(
    smtp.messages.slice(sent).map((m) => m.envelope.to),
    [['a@example.com']],
  );
});

test(
  'an erasure of an address takes its subscriptions: their records in the log are tombstones, it leaves ' +
    'the list, gets nothing more, and may subscribe anew',
  async (t) => {
    const smtp = await smtpServer();
    const server = await startTestServer({ env: smtpEnv(smtp.port), notifications: true, jobs: true });
    t.teardown(async () => {
      await server.stop();
      await smtp.close();
    });
    const token = await login(server.url);
    const { projectId, pageId } = await pageIn(server, token, 'erased');
    await subscribed(server, smtp, 'erased', ['carol@example.com', 'dave@example.com']);
    const carol = subscriberIdOf(pageId, 'carol@example.com');

    const request = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
      token,
      body: { identifier: 'Carol@Example.com' },
    });
    t.is(request.status, 202);
    await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/projects/${projectId}/erasures/${request.body.id}`, { token });
      return res.body.status === 'done' ? res.body : undefined;
    }, 20_000);

    const records = await server.runtime.log.readStream(subscriberStream(carol));
    t.true(records.length >= 2);
    t.true(records.every((r) => r.type === 'RecordRedacted'));
    t.false(JSON.stringify(records).includes('carol'));
    await caughtUp(server, ['subscribers', 'tree']);
    const list = await api(server.url, 'GET', `/v1/status-pages/${pageId}/subscribers`, { token });
    t.deepEqual(
      list.body.data.map((s: { email: string }) => s.email),
      ['dave@example.com'],
    );
    const stream = await api(server.url, 'GET', `/v1/stream?project_id=${projectId}`, { token });
    // The erasure's own events name the identifier as asked (Carol@…); no record holds the address.
    t.false(String(stream.body).includes('carol@example.com'));

    const sent = smtp.messages.length;
    await api(server.url, 'POST', '/v1/incidents', {
      token,
      body: { project_id: projectId, title: 'Down', status: 'investigating', message: 'Looking into it.' },
    });
    await mailSettled(server);
    t.deepEqual(
      smtp.messages.slice(sent).map((m) => m.envelope.to),
      [['dave@example.com']],
    );

    // The address may subscribe again: a new confirmation, as for a new address.
    t.is(
      (await api(server.url, 'POST', '/status/erased/subscribe', { body: { email: 'carol@example.com' } })).status,
      202,
    );
    await mailSettled(server);
    t.regex(smtp.messages.at(-1)!.mail.subject ?? '', /Confirm your subscription/);
    t.deepEqual(smtp.messages.at(-1)!.envelope.to, ['carol@example.com']);
  },
);
