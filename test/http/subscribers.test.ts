import test from 'ava';
import type { ParsedMail } from 'mailparser';
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

/** E-mail subscribers of a status page, end to end: a real SMTP receiver on 127.0.0.1, the form,
 *  the confirmation, an incident's mail with its unsubscribe link, and nothing after it. */

const PUBLIC_URL = 'https://status.example.com';

const smtpEnv = (port: number) => subscriberMailEnv(port, PUBLIC_URL, 'Shop status <status@example.com>');

/** A link of a message, on the test server (the message's links are under WATCHLOG_PUBLIC_URL). */
const linkIn = (mail: ParsedMail, kind: 'confirm' | 'unsubscribe'): string => {
  const found = new RegExp(`${PUBLIC_URL}(/status/[^\\s]+/subscription/${kind}\\?id=[^\\s&]+&token=[\\w-]+)`).exec(
    mail.text ?? '',
  );
  if (found === null) throw new Error(`no ${kind} link in ${mail.text}`);
  return found[1]!;
};

const form = (server: TestServer, path: string, body = '') =>
  fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });

const headerOf = (mail: ParsedMail, name: string) =>
  mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '');

const setUp = async (server: TestServer, slug: string) => {
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, slug);
  const monitor = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'checkout', url: 'http://127.0.0.1:9/' },
    })
  ).body as { id: string };
  const page = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug,
      title: 'Shop status',
      published: true,
      groups: [{ name: 'Shop', monitor_ids: [monitor.id] }],
    },
  });
  if (page.status !== 201) throw new Error(JSON.stringify(page.body));
  return { token, projectId, monitorId: monitor.id, pageId: page.body.id as string };
};

test(
  'subscribe with the form, confirm through the page and its button, get an incident update with an ' +
    'unsubscribe link, unsubscribe through it, and receive nothing more',
  async (t) => {
    const smtp = await smtpServer();
    const server = await startTestServer({ env: smtpEnv(smtp.port), notifications: true });
    t.teardown(async () => {
      await server.stop();
      await smtp.close();
    });
    const { token, projectId, monitorId, pageId } = await setUp(server, 'mail-shop');
    const html = (await api(server.url, 'GET', '/status/mail-shop')).body as string;
    t.regex(html, /<form class="subscribe__form" method="post" action="\/status\/mail-shop\/subscribe">/);
    t.regex(html, /<label for="subscribe-email">/);

    const taken = await form(server, '/status/mail-shop/subscribe', 'email=Ada%40Example.com');
    t.is(taken.status, 200);
    t.regex(taken.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    t.is(taken.headers.get('cache-control'), 'no-store');
    t.regex(await taken.text(), /Check your inbox/);

    const confirmation = await eventually(async () => smtp.messages[0], 10_000);
    t.deepEqual(confirmation.envelope.to, ['ada@example.com']);
    t.regex(confirmation.mail.subject ?? '', /Confirm your subscription to Shop status/);
    t.is(headerOf(confirmation.mail, 'list-unsubscribe'), undefined, 'a confirmation is not a list message');
    const confirm = linkIn(confirmation.mail, 'confirm');

    const list = async () =>
      (await api(server.url, 'GET', `/v1/status-pages/${pageId}/subscribers`, { token })).body as {
        data: Array<{ id: string; email: string; status: string; last_delivery: { status: string } | null }>;
        counts: Record<string, number>;
      };
    // A mail scanner opening the link changes nothing: the page has a button.
    const page = await fetch(server.url + confirm);
    t.is(page.status, 200);
    t.regex(await page.text(), /<form class="action" method="post" action="[^"]+"><button type="submit">Confirm/);
    await caughtUp(server, ['subscribers']);
    t.like((await list()).data[0], { email: 'ada@example.com', status: 'pending' });

    const confirmed = await form(server, confirm);
    t.is(confirmed.status, 200);
    t.regex(await confirmed.text(), /Subscription confirmed/);
    await caughtUp(server, ['subscribers']);
    const afterConfirm = await list();
    t.like(afterConfirm.data[0], { status: 'confirmed', last_delivery: { status: 'delivered' } });
    t.deepEqual(afterConfirm.counts, { pending: 0, confirmed: 1, unsubscribed: 0 });

    // Asking again (as JSON this time) answers the same and sends nothing to a confirmed address.
    const again = await api(server.url, 'POST', '/status/mail-shop/subscribe', { body: { email: 'ada@example.com' } });
    t.is(again.status, 202);
    t.is(again.body.status, 'accepted');
    const fresh = await api(server.url, 'POST', '/status/mail-shop/subscribe', { body: { email: 'new@example.com' } });
    t.deepEqual(fresh.body, again.body, 'the same answer for a new address');

    const incident = await api(server.url, 'POST', '/v1/incidents', {
      token,
      body: {
        project_id: projectId,
        title: 'Checkout errors',
        status: 'investigating',
        monitor_ids: [monitorId],
        message: 'Payments fail for some cards.',
      },
    });
    t.is(incident.status, 201);
    const update = await api(server.url, 'POST', `/v1/incidents/${incident.body.id}/updates`, {
      token,
      body: { status: 'identified', message: 'A certificate expired at the card processor.' },
    });
    t.is(update.status, 201);
    await mailSettled(server);
    const toAda = smtp.messages.filter((m) => m.envelope.to.includes('ada@example.com'));
    t.deepEqual(
      toAda.map((m) => m.mail.subject),
      [
        '[Shop status] Confirm your subscription to Shop status',
        '[Shop status] New incident: Checkout errors',
        '[Shop status] Incident update: Checkout errors',
      ],
    );
    const news = toAda[2]!.mail;
    t.regex(news.text ?? '', /Identified \(.+ UTC\): A certificate expired at the card processor\./);
    t.regex(news.text ?? '', /Affects: checkout/);
    t.regex(news.html || '', /A certificate expired at the card processor\./);
    const unsubscribeLink = linkIn(news, 'unsubscribe');
    t.is(headerOf(news, 'list-unsubscribe'), `<${PUBLIC_URL}${unsubscribeLink}>`);
    t.is(headerOf(news, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    t.is(smtp.messages.filter((m) => m.envelope.to.includes('new@example.com')).length, 1, 'its confirmation only');

    // No public answer holds an address.
    await caughtUp(server, ['statusPages', 'incidents']);
    for (const path of ['', '/summary.json', '/feed.atom', '/history']) {
      const text = await (await fetch(`${server.url}/status/mail-shop${path}`)).text();
      t.false(text.includes('ada@example.com'), path);
      t.false(text.includes('new@example.com'), path);
    }

    const unsubscribePage = await fetch(server.url + unsubscribeLink);
    t.regex(await unsubscribePage.text(), /<button type="submit">Unsubscribe<\/button>/);
    const gone = await form(server, unsubscribeLink);
    t.is(gone.status, 200);
    t.regex(await gone.text(), /You are unsubscribed/);
    t.is((await form(server, unsubscribeLink)).status, 200, 'twice changes nothing');

    const sent = smtp.messages.length;
    await api(server.url, 'POST', `/v1/incidents/${incident.body.id}/updates`, {
      token,
      body: { status: 'resolved', message: 'Fixed.' },
    });
    await mailSettled(server);
    t.is(smtp.messages.length, sent, 'nothing more to an unsubscribed address');
    await caughtUp(server, ['subscribers']);
    const ada = (await list()).data.find((s) => s.email === 'ada@example.com');
    t.like(ada, { status: 'unsubscribed' });
  },
);

test('without WATCHLOG_SMTP_HOST the page has no form and subscribing is a 404 that says why', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  await setUp(server, 'quiet-shop');
  const html = (await api(server.url, 'GET', '/status/quiet-shop')).body as string;
  t.false(html.includes('subscribe'));
  const res = await api(server.url, 'POST', '/status/quiet-shop/subscribe', { body: { email: 'ada@example.com' } });
  t.is(res.status, 404);
  t.regex(res.body.error.message, /subscriptions are off on this deployment/);
});

test(
  'input is checked, links need their token, a page and an address are rate-limited, ' +
    'news goes once per address whatever the pages, and one click unsubscribes',
  async (t) => {
    const smtp = await smtpServer();
    const server = await startTestServer({ env: smtpEnv(smtp.port), notifications: true });
    t.teardown(async () => {
      await server.stop();
      await smtp.close();
    });
    const { token, projectId, monitorId } = await setUp(server, 'one-shop');
    const second = await api(server.url, 'POST', '/v1/status-pages', {
      token,
      body: { project_id: projectId, slug: 'two-shop', title: 'Shop two', published: true, groups: [] },
    });
    t.is(second.status, 201);
    const subscribe = (slug: string, body: unknown) =>
      api(server.url, 'POST', `/status/${slug}/subscribe`, { body, headers: { 'x-forwarded-for': 'ignored' } });

    for (const [body, path] of [
      [{ email: 'not an address' }, 'email'],
      [{ email: 'a,b@example.com' }, 'email'],
      [{ email: 'ada@example.com', name: 'Ada' }, 'name'],
      [{}, 'email'],
    ] as const) {
      const res = await subscribe('one-shop', body);
      t.is(res.status, 400, JSON.stringify(body));
      t.deepEqual(
        res.body.error.details.map((d: { path: string }) => d.path),
        [path],
      );
    }
    const twice = await form(server, '/status/one-shop/subscribe', 'email=a%40example.com&email=b%40example.com');
    t.is(twice.status, 400);
    const text = await fetch(`${server.url}/status/one-shop/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'ada@example.com',
    });
    t.is(text.status, 415);
    t.is((await subscribe('no-such-shop', { email: 'ada@example.com' })).status, 404);

    // The same address on both pages, confirmed on both.
    for (const slug of ['one-shop', 'two-shop'])
      t.is((await subscribe(slug, { email: 'ada@example.com' })).status, 202);
    await mailSettled(server);
    const confirmations = smtp.messages.map((m) => linkIn(m.mail, 'confirm'));
    t.is(confirmations.length, 2);
    const [link] = confirmations;
    const wrong = link!.replace(/token=[\w-]+/, `token=${'A'.repeat(43)}`);
    t.is((await fetch(server.url + wrong)).status, 404);
    t.is((await form(server, wrong)).status, 404);
    t.is((await fetch(server.url + link!.replace(/&token=[\w-]+/, ''))).status, 400);
    for (const confirm of confirmations) t.is((await form(server, confirm)).status, 200);

    // A window for every monitor: both pages show it; the address hears of it once.
    const window = await api(server.url, 'POST', '/v1/maintenances', {
      token,
      body: {
        project_id: projectId,
        title: 'Database upgrade',
        description: 'Checkout is read-only.',
        monitor_ids: 'all',
        starts_at: new Date(Date.now() + 86_400_000).toISOString(),
        ends_at: new Date(Date.now() + 90_000_000).toISOString(),
      },
    });
    t.is(window.status, 201);
    // An incident of the first page's monitor: the second page does not show it.
    await api(server.url, 'POST', '/v1/incidents', {
      token,
      body: { project_id: projectId, title: 'Slow', status: 'investigating', monitor_ids: [monitorId], message: 'x' },
    });
    await mailSettled(server);
    const news = smtp.messages.slice(2);
    t.deepEqual(
      news.map((m) => m.mail.subject),
      ['[Shop status] Maintenance scheduled: Database upgrade', '[Shop status] New incident: Slow'],
    );
    t.regex(news[0]!.mail.text ?? '', /Checkout is read-only\.[\s\S]*Affects: all services/);

    // A mail client's one-click unsubscribe.
    const oneClick = await form(server, linkIn(news[0]!.mail, 'unsubscribe'), 'List-Unsubscribe=One-Click');
    t.is(oneClick.status, 204);
    t.is(await oneClick.text(), '');
    t.is((await form(server, linkIn(news[0]!.mail, 'unsubscribe'), 'List-Unsubscribe=Yes')).status, 400);

    // Ten requests of one client address in ten minutes, then 429.
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i++)
      status = (await subscribe('two-shop', { email: `x${i}@example.com` })).status;
    t.is(status, 429);
  },
);

test("on the projectors' own thread (as `watchlog start` runs them) the confirmation goes out too", async (t) => {
  const smtp = await smtpServer();
  const server = await startTestServer({ env: smtpEnv(smtp.port), projectorThread: true });
  t.teardown(async () => {
    await server.stop();
    await smtp.close();
  });
  await setUp(server, 'thread-shop');
  const res = await api(server.url, 'POST', '/status/thread-shop/subscribe', { body: { email: 'ada@example.com' } });
  t.is(res.status, 202);
  const mail = await eventually(async () => smtp.messages[0], 15_000);
  t.deepEqual(mail.envelope.to, ['ada@example.com']);
  t.regex(linkIn(mail.mail, 'confirm'), /^\/status\/thread-shop\/subscription\/confirm\?id=/);
});
