import test from 'ava';
import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';
import type { ChannelCreateInput, ChannelTarget } from '../../src/domain/channel.ts';
import { targetOf } from '../../src/domain/channel-target.ts';
import { alertNotification, transitionNotification, type Notification } from '../../src/domain/notification.ts';
import { sendOnce, type SendOptions } from '../../src/reactors/notifications/send.ts';
import { defaultEgress as egress } from '../helpers/egress.ts';
import { providerReceiver } from '../helpers/provider-receiver.ts';
import { selfSignedCert, smtpServer } from '../helpers/smtp.ts';

const P = '0b7c2a4e-1111-4a4a-8a8a-000000000001';
const M = '5d1c7e20-1b2a-4c3d-8e4f-5a6b7c8d9e01';
const PUBLIC = 'https://watchlog.example.com';
const down = transitionNotification('7a2e4b6c-4444-4d4d-8e8e-00000000000d', {
  type: 'MonitorWentDown',
  data: {
    monitor_id: M,
    project_id: P,
    name: 'checkout-api',
    url: 'https://checkout.example.com/health',
    expected_status: 200,
    went_down_at: '2026-11-23T10:00:00.000Z',
    response_ms: 31,
    error: 'expected status 200, received 503',
    status_code: 503,
  },
});
const up = transitionNotification('7a2e4b6c-4444-4d4d-8e8e-00000000000e', {
  type: 'MonitorCameUp',
  data: {
    monitor_id: M,
    project_id: P,
    name: 'checkout-api',
    url: 'https://checkout.example.com/health',
    came_up_at: '2026-11-23T10:05:02.000Z',
    status_code: 200,
    response_ms: 12,
    downtime_seconds: 302,
  },
});
const alert = alertNotification({
  alert_id: '7a2e4b6c-4444-4d4d-8e8e-00000000000a',
  project_id: P,
  rule: 'brute_force',
  subject: 'u-42',
  service_name: 'auth',
  environment: 'production',
  detected_at: '2026-11-23T11:00:00.000Z',
  details: { count: 12, window_minutes: 5 },
});
const options: SendOptions = {
  egress,
  publicUrl: PUBLIC,
  vapid: { publicKey: 'unused', privateKey: 'unused' },
  vapidSubject: 'mailto:ops@example.com',
  timeoutMs: 3000,
};
const LINK = `${PUBLIC}/p/${P}/monitors?open=${M}`;
const target = (input: Record<string, unknown>): ChannelTarget =>
  targetOf({ project_id: P, ...input } as ChannelCreateInput);

/** Every message says what happened, to which service and URL, since when, with the link. */
const saysItAll = (t: import('ava').ExecutionContext, text: string) => {
  for (const part of [
    'checkout-api',
    'DOWN',
    'https://checkout.example.com/health',
    '2026-11-23 10:00:00 UTC',
    'expected status 200, received 503',
  ]) {
    t.true(text.includes(part), `"${part}" is in the message`);
  }
};

test('Slack: an incoming-webhook POST with Block Kit blocks and a fallback text; 2xx is delivered', async (t) => {
  const slack = await providerReceiver(() => ({ status: 200, body: 'ok' }));
  t.teardown(() => slack.close());
  const answer = await sendOnce(target({ type: 'slack', url: `${slack.base}/services/T000/B000/XXXX` }), down, options);
  t.like(answer, { ok: true, status: 200, response: 'ok', error: null });
  const [req] = slack.received;
  t.is(req!.path, '/services/T000/B000/XXXX');
  t.is(req!.headers['content-type'], 'application/json');
  const body = req!.json as {
    text: string;
    blocks: Array<{ type: string; text: { type: string }; fields: Array<{ text: string }>; elements: unknown[] }>;
  };
  saysItAll(t, body.text);
  t.deepEqual(
    body.blocks.map((b) => b.type),
    ['header', 'section', 'section', 'actions'],
  );
  t.deepEqual(body.blocks[0]!.text, { type: 'plain_text', text: '🔴 checkout-api is DOWN', emoji: true });
  t.is(body.blocks[1]!.text.type, 'mrkdwn');
  t.true(body.blocks[2]!.fields.some((f: { text: string }) => f.text === '*URL*\nhttps://checkout.example.com/health'));
  t.true(body.blocks[2]!.fields.length <= 10);
  t.like(body.blocks[3]!.elements[0], { type: 'button', url: LINK });
});

test('Slack: markup in a monitor name is escaped; a 404 "no_service" is final, a 500 may pass later', async (t) => {
  const slack = await providerReceiver((n) =>
    n === 0 ? { status: 404, body: 'no_service' } : { status: 500, body: 'oops' },
  );
  t.teardown(() => slack.close());
  const named = { ...down, monitor: { ...down.monitor, name: 'a <b> & c' } } satisfies Notification;
  t.like(await sendOnce(target({ type: 'slack', url: `${slack.base}/x` }), named, options), {
    ok: false,
    retryable: false,
    status: 404,
    response: 'no_service',
  });
  t.like(await sendOnce(target({ type: 'slack', url: `${slack.base}/x` }), named, options), {
    ok: false,
    retryable: true,
    status: 500,
  });
  t.true((slack.received[0]!.json.blocks[1].text.text as string).startsWith('a &lt;b&gt; &amp; c'));
});

test(
  'Discord: ' + 'a webhook POST with one embed (title, description, link, color, fields, timestamp) and no mentions',
  async (t) => {
    const discord = await providerReceiver(() => ({ status: 204 }));
    t.teardown(() => discord.close());
    t.like(await sendOnce(target({ type: 'discord', url: `${discord.base}/api/webhooks/1/tok` }), up, options), {
      ok: true,
      status: 204,
    });
    const body = discord.received[0]!.json as {
      username: string;
      allowed_mentions: { parse: string[] };
      embeds: Array<{
        title: string;
        description: string;
        url: string;
        color: number;
        timestamp: string;
        fields: Array<{ name: string; value: string; inline: boolean }>;
      }>;
    };
    t.is(body.username, 'watchlog');
    t.deepEqual(body.allowed_mentions, { parse: [] });
    t.is(body.embeds.length, 1);
    const [embed] = body.embeds;
    t.is(embed!.title, '🟢 checkout-api is UP');
    t.is(
      embed!.description,
      'checkout-api (https://checkout.example.com/health) is UP again since 2026-11-23 10:05:02 UTC, ' +
        'after 5 min 2 s DOWN.',
    );
    t.is(embed!.url, LINK);
    t.is(embed!.color, 0x12b76a);
    t.is(embed!.timestamp, '2026-11-23T10:05:02.000Z');
    t.deepEqual(
      embed!.fields.find((f: { name: string }) => f.name === 'Down since'),
      { name: 'Down since', value: '2026-11-23 10:00:00 UTC', inline: true },
    );
  },
);

test('Microsoft Teams: a workflow-webhook POST of a message with one Adaptive Card', async (t) => {
  const teams = await providerReceiver(() => ({ status: 202 }));
  t.teardown(() => teams.close());
  t.like(
    await sendOnce(
      target({ type: 'teams', url: `${teams.base}/workflows/abc/triggers/manual/paths/invoke?sig=s` }),
      down,
      options,
    ),
    { ok: true, status: 202 },
  );
  const body = teams.received[0]!.json as {
    type: string;
    attachments: Array<{
      contentType: string;
      content: { body: Array<{ type: string; text: string }>; actions: unknown };
    }>;
  };
  t.is(body.type, 'message');
  t.is(body.attachments.length, 1);
  const [attachment] = body.attachments;
  t.is(attachment!.contentType, 'application/vnd.microsoft.card.adaptive');
  const card = attachment!.content;
  t.like(card, { type: 'AdaptiveCard', version: '1.4', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json' });
  t.deepEqual(
    card.body.map((b: { type: string }) => b.type),
    ['TextBlock', 'TextBlock', 'FactSet'],
  );
  t.like(card.body[0], { text: '🔴 checkout-api is DOWN', weight: 'Bolder', color: 'Attention' });
  saysItAll(t, card.body[1]!.text);
  t.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open in watchlog', url: LINK }]);
});

test(
  'PagerDuty: DOWN triggers and UP resolves with the same dedup key; an alert triggers its own; ' +
    'Events API v2 fields',
  async (t) => {
    const pd = await providerReceiver(() => ({
      status: 202,
      body: '{"status":"success","message":"Event processed"}',
    }));
    t.teardown(() => pd.close());
    const channel = target({
      type: 'pagerduty',
      routing_key: 'R0UT1NGKEY0000000000000000000001',
      url: `${pd.base}/v2/enqueue`,
    });
    t.like(await sendOnce(channel, down, options), {
      ok: true,
      status: 202,
      response: '{"status":"success","message":"Event processed"}',
    });
    await sendOnce(channel, up, options);
    await sendOnce(channel, alert, options);
    // A resolve has no payload and no links.
    const [trigger, resolve, alerted] = pd.received.map(
      (r) => r.json as { payload?: { summary: string }; links?: unknown },
    );
    t.like(trigger, {
      routing_key: 'R0UT1NGKEY0000000000000000000001',
      event_action: 'trigger',
      dedup_key: `watchlog-monitor-${M}`,
      client: 'watchlog',
      client_url: LINK,
    });
    t.like(trigger!.payload, {
      source: 'https://checkout.example.com/health',
      severity: 'critical',
      component: 'checkout-api',
      class: 'monitor.down',
      timestamp: '2026-11-23T10:00:00.000Z',
    });
    saysItAll(t, trigger!.payload!.summary);
    t.deepEqual(trigger!.links, [{ href: LINK, text: 'Open in watchlog' }]);
    t.deepEqual(resolve, {
      routing_key: 'R0UT1NGKEY0000000000000000000001',
      event_action: 'resolve',
      dedup_key: `watchlog-monitor-${M}`,
    });
    t.like(alerted, { event_action: 'trigger', dedup_key: `watchlog-alert-${alert.id}` });
    t.like(alerted!.payload, { source: 'auth', severity: 'critical', class: 'anomaly.detected' });
    t.is(pd.received[0]!.path, '/v2/enqueue');
  },
);

test("PagerDuty: a test triggers at info and resolves at once; the channel's severity applies to DOWN", async (t) => {
  const pd = await providerReceiver(() => ({ status: 202, body: '{"status":"success"}' }));
  t.teardown(() => pd.close());
  const channel = target({ type: 'pagerduty', routing_key: 'k', url: `${pd.base}/v2/enqueue`, severity: 'warning' });
  const test = {
    id: 'x',
    type: 'channel.test' as const,
    project_id: P,
    channel: { id: 'c1', name: 'on call' },
    timestamp: '2026-11-23T12:00:00.000Z',
  };
  t.like(await sendOnce(channel, test, options), { ok: true });
  t.deepEqual(
    pd.received.map((r) => [r.json.event_action, r.json.dedup_key, r.json.payload?.severity]),
    [
      ['trigger', 'watchlog-test-c1', 'info'],
      ['resolve', 'watchlog-test-c1', undefined],
    ],
  );
  await sendOnce(channel, down, options);
  t.is(pd.received[2]!.json.payload.severity, 'warning');
});

test(
  "ntfy: JSON publishing to the server's root with topic, title, message, priority, tags, " +
    'click and a view action; a token is a bearer',
  async (t) => {
    const ntfy = await providerReceiver(() => ({ status: 200, body: '{"id":"abc","event":"message"}' }));
    t.teardown(() => ntfy.close());
    t.like(
      await sendOnce(target({ type: 'ntfy', url: ntfy.base, topic: 'ops-alerts', token: 'tk_secret' }), down, options),
      { ok: true, status: 200 },
    );
    const [req] = ntfy.received;
    t.is(req!.path, '/');
    t.is(req!.headers.authorization, 'Bearer tk_secret');
    t.like(req!.json, {
      topic: 'ops-alerts',
      title: 'checkout-api is DOWN',
      priority: 5,
      tags: ['rotating_light'],
      click: LINK,
    });
    saysItAll(t, req!.json.message);
    t.deepEqual(req!.json.actions, [{ action: 'view', label: 'Open in watchlog', url: LINK }]);
    await sendOnce(target({ type: 'ntfy', url: ntfy.base, topic: 'ops-alerts' }), up, { ...options, publicUrl: null });
    t.is(ntfy.received[1]!.headers.authorization, undefined);
    t.like(ntfy.received[1]!.json, { priority: 3, tags: ['white_check_mark'] });
    t.false('click' in ntfy.received[1]!.json, 'no link without WATCHLOG_PUBLIC_URL');
  },
);

test(
  'e-mail, TLS off: ' + 'a real SMTP server receives plain text and HTML, from and to as set, with the delivery header',
  async (t) => {
    const smtp = await smtpServer();
    t.teardown(() => smtp.close());
    const channel = target({
      type: 'email',
      smtp: { host: '127.0.0.1', port: smtp.port, security: 'none' },
      from: 'watchlog@example.com',
      to: ['ops@example.com', 'oncall@example.com'],
    });
    const answer = await sendOnce(channel, down, options);
    t.like(answer, { ok: true, status: 250, error: null });
    t.is(smtp.messages.length, 1);
    const [{ mail, secure, envelope }] = smtp.messages as [(typeof smtp.messages)[number]];
    t.false(secure);
    t.deepEqual(envelope, { from: 'watchlog@example.com', to: ['ops@example.com', 'oncall@example.com'] });
    t.is(mail.subject, '[watchlog] checkout-api is DOWN');
    saysItAll(t, mail.text ?? '');
    t.true((mail.text ?? '').includes(`Open in watchlog: ${LINK}`));
    t.true(typeof mail.html === 'string' && mail.html.includes(`<a href="${LINK}">Open in watchlog</a>`));
    saysItAll(t, mail.html as string);
    t.is(mail.headers.get('x-watchlog-delivery'), down.id);
  },
);

test(
  'e-mail, STARTTLS with a self-signed certificate trusted through `ca`, and a login; ' +
    'an untrusted one is refused, for good',
  async (t) => {
    const cert = await selfSignedCert();
    const smtp = await smtpServer({ tls: cert, login: { user: 'mailer', pass: 'mail-pass-1' } });
    t.teardown(() => smtp.close());
    const base = { type: 'email', from: 'watchlog@example.com', to: ['ops@example.com'] };
    const smtpOf = (extra: Record<string, unknown>) => ({
      host: 'localhost',
      port: smtp.port,
      security: 'starttls',
      username: 'mailer',
      password: 'mail-pass-1',
      ...extra,
    });
    t.like(await sendOnce(target({ ...base, smtp: smtpOf({ ca: cert.cert }) }), alert, options), {
      ok: true,
      status: 250,
    });
    t.true(smtp.messages[0]!.secure, 'the session was upgraded to TLS');
    t.is(smtp.messages[0]!.user, 'mailer');
    t.is(smtp.messages[0]!.mail.subject, '[watchlog] Anomaly: brute_force on auth');

    const untrusted = await sendOnce(target({ ...base, smtp: smtpOf({}) }), alert, options);
    t.like(untrusted, { ok: false, retryable: false, status: null });
    t.regex(untrusted.error ?? '', /certificate/i);
    t.like(await sendOnce(target({ ...base, smtp: smtpOf({ reject_unauthorized: false }) }), alert, options), {
      ok: true,
    });
    t.like(
      await sendOnce(target({ ...base, smtp: smtpOf({ ca: cert.cert, password: 'wrong-pass' }) }), alert, options),
      {
        ok: false,
        retryable: false,
      },
    );
    t.is(smtp.messages.length, 2);
  },
);

test(
  'e-mail, TLS from the first byte (port 465 style); ' +
    'a server without STARTTLS is refused when STARTTLS is required',
  async (t) => {
    const cert = await selfSignedCert();
    const tls = await smtpServer({ tls: cert, secure: true });
    const plain = await smtpServer();
    t.teardown(async () => {
      await tls.close();
      await plain.close();
    });
    const base = { type: 'email', from: 'watchlog@example.com', to: ['ops@example.com'] };
    t.like(
      await sendOnce(
        target({ ...base, smtp: { host: 'localhost', port: tls.port, security: 'tls', ca: cert.cert } }),
        up,
        options,
      ),
      { ok: true, status: 250 },
    );
    t.true(tls.messages[0]!.secure);
    const refused = await sendOnce(target({ ...base, smtp: { host: '127.0.0.1', port: plain.port } }), up, options);
    t.like(refused, { ok: false, retryable: false });
    t.is(plain.messages.length, 0, 'nothing is sent in clear text when STARTTLS is required (the default)');
  },
);

test('e-mail: a 4xx reply may pass on a later try, a 5xx will not', async (t) => {
  const smtp = await smtpServer({ replyCode: (n) => (n === 0 ? 451 : 550) });
  t.teardown(() => smtp.close());
  const channel = target({
    type: 'email',
    smtp: { host: '127.0.0.1', port: smtp.port, security: 'none' },
    from: 'w@example.com',
    to: ['o@example.com'],
  });
  t.like(await sendOnce(channel, down, options), { ok: false, retryable: true, status: 451 });
  t.like(await sendOnce(channel, down, options), { ok: false, retryable: false, status: 550 });
});

test(
  'e-mail goes through the egress policy: ' + 'a denied SMTP server is never connected to, and the refusal is final',
  async (t) => {
    const smtp = await smtpServer();
    t.teardown(() => smtp.close());
    const denied = egressPolicy(loadConfig({ WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' }).egress);
    for (const host of ['localhost', '127.0.0.1']) {
      const answer = await sendOnce(
        target({
          type: 'email',
          smtp: { host, port: smtp.port, security: 'none' },
          from: 'w@example.com',
          to: ['o@example.com'],
        }),
        down,
        { ...options, egress: denied },
      );
      t.like(answer, { ok: false, retryable: false, status: null }, host);
      t.regex(answer.error ?? '', /^blocked by egress policy/, host);
    }
    t.is(smtp.sessions(), 0);
  },
);

test('every HTTP provider goes through the egress policy too', async (t) => {
  const receiver = await providerReceiver();
  t.teardown(() => receiver.close());
  const denied = egressPolicy(loadConfig({ WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' }).egress);
  const url = receiver.base.replace('127.0.0.1', 'localhost');
  for (const input of [
    { type: 'slack', url },
    { type: 'discord', url },
    { type: 'teams', url },
    { type: 'pagerduty', url, routing_key: 'k' },
    { type: 'ntfy', url, topic: 't' },
  ]) {
    const answer = await sendOnce(target(input), down, { ...options, egress: denied });
    t.like(answer, { ok: false, retryable: false }, input.type);
    t.regex(answer.error ?? '', /^blocked by egress policy/, input.type);
  }
  t.is(receiver.received.length, 0);
});
