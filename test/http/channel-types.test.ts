import test from 'ava';
import { paths, setUp } from '../helpers/channels.ts';
import { providerReceiver } from '../helpers/provider-receiver.ts';
import { smtpServer } from '../helpers/smtp.ts';
import { api, login, startTestServer, type TestServer } from '../helpers/server.ts';

/** Channel types and test sends through the real app (docs/notifications.md); their deliveries
 *  are in channel-deliveries.test.ts. One server: each test has a project of its own. */

let server: TestServer;
test.before(async () => {
  server = await startTestServer({
    env: { WATCHLOG_EGRESS_DENY: '169.254.0.0/16', WATCHLOG_PUBLIC_URL: 'https://watchlog.example.com/' },
  });
});
test.after.always(() => server.stop());

test('every channel type is saved with its settings and shown without a secret; faulty fields are named', async (t) => {
  const { token, projectId, channel } = await setUp(server);
  const secrets = ['T000/B000/sl4ck', 'disc0rd-t0ken', 'te4ms-sig', 'R0UT1NGKEY', 'smtp-p4ss', 'tk_ntfy'];
  const created = [
    await channel({
      type: 'slack',
      url: 'https://hooks.slack.com/services/T000/B000/sl4ck',
      name: 'Ops Slack',
      events: ['healthcheck', 'alert'],
    }),
    await channel({ type: 'discord', url: 'https://discord.com/api/webhooks/1/disc0rd-t0ken', quiet_minutes: 15 }),
    await channel({
      type: 'teams',
      url: 'https://prod.westeurope.logic.azure.com/workflows/1/triggers/manual/paths/invoke?sig=te4ms-sig',
    }),
    await channel({ type: 'pagerduty', routing_key: 'R0UT1NGKEY', severity: 'error' }),
    await channel({
      type: 'email',
      smtp: { host: 'smtp.example.com', username: 'mailer', password: 'smtp-p4ss' },
      from: 'watchlog@example.com',
      to: ['ops@example.com'],
    }),
    await channel({ type: 'ntfy', topic: 'ops-alerts', token: 'tk_ntfy' }),
  ];
  t.like(created[0], {
    type: 'slack',
    name: 'Ops Slack',
    url: 'https://hooks.slack.com/…',
    has_secret: true,
    events: ['healthcheck', 'alert'],
    project_scope: 'project',
    degraded: false,
  });
  t.like(created[1], { type: 'discord', url: 'https://discord.com/…', quiet_minutes: 15 });
  t.like(created[3], {
    type: 'pagerduty',
    url: 'https://events.pagerduty.com/v2/enqueue',
    settings: { severity: 'error' },
  });
  t.like(created[4], {
    type: 'email',
    url: 'smtp://smtp.example.com:587',
    has_secret: true,
    settings: {
      from: 'watchlog@example.com',
      to: ['ops@example.com'],
      smtp: {
        host: 'smtp.example.com',
        port: 587,
        security: 'starttls',
        username: 'mailer',
        reject_unauthorized: true,
        has_ca: false,
      },
    },
  });
  t.like(created[5], {
    type: 'ntfy',
    url: 'https://ntfy.sh/ops-alerts',
    has_secret: true,
    settings: { topic: 'ops-alerts' },
  });
  const listed = JSON.stringify((await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body);
  for (const secret of secrets) t.false(listed.includes(secret), `${secret} is never shown`);

  const post = (body: Record<string, unknown>) =>
    api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
  t.deepEqual(
    paths(await post({ type: 'email', smtp: { host: '', port: 0, security: 'ssl' }, from: 'nobody', to: [] })),
    ['from', 'smtp.host', 'smtp.port', 'smtp.security', 'to'],
  );
  t.deepEqual(
    paths(
      await post({
        type: 'email',
        smtp: { host: 'smtp.example.com', tls: true },
        from: 'a@example.com',
        to: ['ok@example.com', 'not-an-address'],
      }),
    ),
    ['smtp.tls', 'to.1'],
  );
  t.deepEqual(paths(await post({ type: 'pagerduty', severity: 'fatal' })), ['routing_key', 'severity']);
  t.deepEqual(paths(await post({ type: 'ntfy', topic: 'no spaces here', url: 'ftp://ntfy.example.com' })), [
    'topic',
    'url',
  ]);
  t.deepEqual(paths(await post({ type: 'slack', url: 'https://hooks.slack.com/x', secret: 'a-secret-1' })), ['secret']);
  t.deepEqual(paths(await post({ type: 'teams', url: 'https://x.example.com/', quiet_minutes: 2000, name: '' })), [
    'name',
    'quiet_minutes',
  ]);
  const denied = await post({
    type: 'email',
    smtp: { host: '169.254.169.254' },
    from: 'a@example.com',
    to: ['b@example.com'],
  });
  t.is(denied.status, 400);
  t.deepEqual(denied.body.error.details, [
    { path: 'smtp.host', message: 'blocked by egress policy (169.254.169.254 is in 169.254.0.0/16)' },
  ]);
  const wrongType = await post({ type: 'sms', url: 'https://x.example.com/' });
  t.deepEqual(wrongType.body.error.details, [
    { path: 'type', message: 'must be one of webhook, webpush, slack, discord, teams, email, pagerduty, ntfy' },
  ]);

  // A channel for every project is an admin's: a member may not make one, nor see it.
  const member = { email: 'member@example.com', password: 'member-password' };
  await api(server.url, 'POST', '/v1/users', { token, body: { ...member, role: 'member', project_ids: [projectId] } });
  const memberToken = await login(server.url, member.email, member.password);
  const asMember = await api(server.url, 'POST', '/v1/channels', {
    token: memberToken,
    body: { project_id: projectId, type: 'slack', url: 'https://hooks.slack.com/x', project_scope: 'all' },
  });
  t.is(asMember.status, 400);
  t.deepEqual(asMember.body.error.details, [{ path: 'project_scope', message: 'may be all only for admins' }]);
  const everywhere = await channel({
    type: 'slack',
    url: 'https://hooks.slack.com/services/all',
    project_scope: 'all',
  });
  t.is((await api(server.url, 'GET', `/v1/channels/${everywhere.id}`, { token: memberToken })).status, 404);
  t.false(
    JSON.stringify((await api(server.url, 'GET', '/v1/channels', { token: memberToken })).body).includes(everywhere.id),
  );

  const updated = await api(server.url, 'PUT', `/v1/channels/${created[0]!.id}`, {
    token,
    body: { name: null, quiet_minutes: 5, active: false },
  });
  t.like(updated.body, { name: null, quiet_minutes: 5, active: false });
  t.deepEqual(
    paths(
      await api(server.url, 'PUT', `/v1/channels/${created[0]!.id}`, {
        token,
        body: { url: 'https://elsewhere.example.com' },
      }),
    ),
    ['url'],
  );
});

test(
  'POST /v1/channels/:id/test sends a test notification now and answers with what the provider said; ' +
    'nothing is recorded',
  async (t) => {
    const slack = await providerReceiver((n) =>
      n === 0 ? { status: 200, body: 'ok' } : { status: 404, body: 'no_service' },
    );
    const smtp = await smtpServer();
    t.teardown(async () => {
      await slack.close();
      await smtp.close();
    });
    const { token, projectId, channel } = await setUp(server);
    const chat = await channel({
      type: 'slack',
      url: `${slack.base}/services/T/B/X`,
      name: 'Ops Slack',
      active: false,
    });
    const ok = await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, { token });
    t.is(ok.status, 200);
    t.like(ok.body, { ok: true, status: 200, response: 'ok', error: null });
    t.true(Number.isInteger(ok.body.duration_ms));
    const sent = slack.received[0]!.json;
    t.is(sent.blocks[0].text.text, '🧪 watchlog test notification');
    t.true((sent.text as string).includes('Ops Slack'));
    t.is(sent.blocks.at(-1).elements[0].url, `https://watchlog.example.com/p/${projectId}/settings?tab=channels`);
    t.like((await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, { token })).body, {
      ok: false,
      status: 404,
      response: 'no_service',
      error: 'answered 404',
    });

    const mail = await channel({
      type: 'email',
      smtp: { host: '127.0.0.1', port: smtp.port, security: 'none' },
      from: 'watchlog@example.com',
      to: ['ops@example.com'],
    });
    t.like((await api(server.url, 'POST', `/v1/channels/${mail.id}/test`, { token })).body, { ok: true, status: 250 });
    t.is(smtp.messages[0]!.mail.subject, '[watchlog] watchlog test notification');

    const auditor = { email: 'auditor@example.com', password: 'auditor-password' };
    await api(server.url, 'POST', '/v1/users', {
      token,
      body: { ...auditor, role: 'auditor', project_ids: [projectId] },
    });
    t.is(
      (
        await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, {
          token: await login(server.url, auditor.email, auditor.password),
        })
      ).status,
      403,
    );
    t.is(
      (await api(server.url, 'POST', '/v1/channels/00000000-0000-4000-8000-000000000000/test', { token })).status,
      404,
    );
    t.is((await api(server.url, 'POST', `/v1/channels/${chat.id}/test?x=1`, { token })).status, 400);
    t.deepEqual((await api(server.url, 'GET', `/v1/channels/${chat.id}/deliveries`, { token })).body.data, []);
  },
);
