import test from 'ava';
import { recordCheck } from '../../src/commands/monitors.ts';
import { providerReceiver } from '../helpers/provider-receiver.ts';
import { smtpServer } from '../helpers/smtp.ts';
import { ADMIN, api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** The Phones channel, or its delivery log, as the API answers them. */
interface PhonesAnswer {
  degraded: boolean;
  data: Array<{ title: string; status: string }>;
}

test(
  'channel settings: every type through the form, errors at their fields, ' +
    'the Test button with the provider\'s answer, the delivery log with "Send again", a degraded channel shown',
  async (t) => {
    const server = await startTestServer({ notifications: true, env: { WATCHLOG_NOTIFY_DEGRADED_AFTER: '1' } });
    let failing = true;
    const slack = await providerReceiver(() => ({ status: 200, body: 'ok' }));
    const ntfy = await providerReceiver(() =>
      failing ? { status: 500, body: 'down for maintenance' } : { status: 200, body: '{"id":"x"}' },
    );
    const smtp = await smtpServer();
    t.teardown(async () => {
      await server.stop();
      await slack.close();
      await ntfy.close();
      await smtp.close();
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'shop');
    const { page, errors } = await openTab(t, server.url, { clock: true });
    await signIn(page, ADMIN, `/p/${projectId}/settings?tab=channels`);
    await page.getByText(/No channel yet/).waitFor();
    const form = page.getByRole('form', { name: 'New channel' });
    const add = () => form.getByRole('button', { name: 'Add channel' }).click();
    const table = page.getByRole('table', { name: 'Notification channels' });

    // Slack: a URL that is not one, then the receiver's.
    await form.getByLabel('Type').selectOption('slack');
    await form.getByLabel('Webhook URL').fill('hooks.slack.com');
    await add();
    await form.locator('#ch-url-error').waitFor();
    await form.getByLabel('Name (optional)', { exact: true }).fill('Ops Slack');
    await form.getByLabel('Webhook URL').fill(`${slack.base}/services/T/B/X`);
    await add();
    const slackRow = table.getByRole('row').filter({ hasText: 'Ops Slack' });
    await slackRow.waitFor();
    t.regex(await slackRow.innerText(), /Slack[\s\S]*Ops Slack[\s\S]*http:\/\/127\.0\.0\.1:\d+\/…[\s\S]*Active/);
    await slackRow.getByRole('button', { name: 'Test Ops Slack' }).click();
    await page.getByRole('status').filter({ hasText: 'Test of Ops Slack: Delivered: answered 200: ok' }).waitFor();
    t.is(slack.received.length, 1);
    t.is(slack.received[0]!.json.blocks[0].text.text, '🧪 watchlog test notification');

    // E-mail: every SMTP field; the faulty ones named at their fields, a list's line included.
    await form.getByLabel('Type').selectOption('email');
    await form.getByLabel('SMTP host').fill('');
    await form.getByLabel('From').fill('watchlog');
    await form.getByLabel('To (one address per line)').fill('ops@example.com\nnot an address');
    await add();
    for (const [id, text] of [
      ['#ch-host-error', /must be a string of 1 to 253 characters/],
      ['#ch-from-error', /e-mail address/],
      ['#ch-to-error', /line 2: must be an e-mail address/],
    ] as const) {
      await form.locator(id).waitFor();
      t.regex(await form.locator(id).innerText(), text, id);
    }
    await screenshot(page, 'settings-channel-errors');
    await form.getByLabel('Name (optional)', { exact: true }).fill('Ops mail');
    await form.getByLabel('SMTP host').fill('127.0.0.1');
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel('Port (optional)').fill(String(smtp.port));
    await form.getByLabel('From').fill('watchlog@example.com');
    await form.getByLabel('To (one address per line)').fill('ops@example.com');
    await add();
    const mailRow = table.getByRole('row').filter({ hasText: 'Ops mail' });
    await mailRow.waitFor();
    t.regex(await mailRow.innerText(), new RegExp(`E-mail[\\s\\S]*smtp://127\\.0\\.0\\.1:${smtp.port}`));
    await mailRow.getByRole('button', { name: 'Test Ops mail' }).click();
    await page.getByRole('status').filter({ hasText: 'Test of Ops mail: Delivered: answered 250' }).waitFor();
    t.is(smtp.messages[0]!.mail.subject, '[watchlog] watchlog test notification');

    // PagerDuty and Discord and Teams: their fields, saved.
    await form.getByLabel('Type').selectOption('pagerduty');
    await form.getByLabel('Routing key').fill('R0UT1NGKEY');
    await form.getByLabel('Severity').selectOption('warning');
    await form.getByLabel('Name (optional)', { exact: true }).fill('On call');
    await add();
    await table.getByRole('row').filter({ hasText: 'On call' }).waitFor();
    for (const [type, name] of [
      ['discord', 'Discord room'],
      ['teams', 'Teams room'],
    ] as const) {
      await form.getByLabel('Type').selectOption(type);
      await form.getByLabel('Name (optional)', { exact: true }).fill(name);
      await form.getByLabel('Webhook URL').fill(`https://${type}.example.com/hook/1`);
      await add();
      await table.getByRole('row').filter({ hasText: name }).waitFor();
    }

    // ntfy, with a quiet period: it fails, is degraded, and its failed delivery is sent again.
    await form.getByLabel('Type').selectOption('ntfy');
    await form.getByLabel('Topic').fill('ops alerts');
    await add();
    await form.locator('#ch-topic-error').waitFor();
    await form.getByLabel('Topic').fill('ops-alerts');
    await form.getByLabel('Server URL (optional)').fill(ntfy.base);
    await form.getByLabel('Name (optional)', { exact: true }).fill('Phones');
    await form.getByLabel('Quiet period, minutes (optional)').fill('10');
    await add();
    const ntfyRow = table.getByRole('row').filter({ hasText: 'Phones' });
    await ntfyRow.waitFor();
    t.regex(await ntfyRow.innerText(), /quiet 10 min after a DOWN/);
    const channels = (await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body as Array<{
      id: string;
      type: string;
    }>;
    const phones = channels.find((c) => c.type === 'ntfy')!.id;
    /** Until the API answers what `check` wants of the Phones channel, then the page's next refresh
     *  of `every` ms (its clock is moved on by that). */
    const shown = async (path: string, check: (body: PhonesAnswer) => boolean, every: number) => {
      await eventually(
        async () =>
          check((await api(server.url, 'GET', `/v1/channels/${phones}${path}`, { token })).body) ? true : undefined,
        20_000,
      );
      await page.clock.fastForward(every);
    };
    t.deepEqual(channels.map((c) => c.type).sort(), ['discord', 'email', 'ntfy', 'pagerduty', 'slack', 'teams']);

    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'checkout-api', url: 'http://127.0.0.1:9/', enabled: false },
      })
    ).body;
    const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
    for (const [i, ok] of [true, false].entries()) {
      await recordCheck(
        server.runtime.commands,
        monitor.id,
        { checked_at: new Date(Date.now() + i * 1000).toISOString(), ok, response_ms: 5, status_code: ok ? 200 : 503 },
        ctx,
      );
    }
    // Degraded, then shown at the list's next refresh (every 5 s).
    await shown('', (c) => c.degraded === true, 5_000);
    await eventually(
      async () =>
        /Degraded: 1 deliveries in a row failed; the last: answered 500/.test(await ntfyRow.innerText())
          ? true
          : undefined,
      20_000,
    );
    await ntfyRow.getByRole('button', { name: 'Deliveries of Phones' }).click();
    const log = page.getByRole('table', { name: 'Deliveries of Phones' });
    const failedRow = log.getByRole('row').filter({ hasText: 'checkout-api is DOWN' });
    await eventually(
      async () => (/failed[\s\S]*3[\s\S]*500: answered 500/.test(await failedRow.innerText()) ? true : undefined),
      10_000,
    );
    await screenshot(page, 'settings-channel-deliveries');
    failing = false;
    await failedRow.getByRole('button', { name: 'Send again checkout-api is DOWN' }).click();
    // Delivered, then shown at the delivery log's next refresh (every 10 s).
    await shown(
      '/deliveries',
      (log) =>
        log.data.some(
          (d: { title: string; status: string }) => d.title === 'checkout-api is DOWN' && d.status === 'delivered',
        ),
      10_000,
    );
    await eventually(
      async () => (/delivered[\s\S]*4[\s\S]*200/.test(await failedRow.innerText()) ? true : undefined),
      20_000,
    );
    await shown('', (c) => c.degraded === false, 5_000);
    await eventually(async () => (!/Degraded/.test(await ntfyRow.innerText()) ? true : undefined), 20_000);
    t.is(ntfy.received.at(-1)!.json.title, 'checkout-api is DOWN');
    await screenshot(page, 'settings-channels-all-types');
    t.deepEqual(errors, []);
  },
);
