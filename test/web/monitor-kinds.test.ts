import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { Locator, Page } from 'playwright-core';
import { api, projectWithKey, serverWithTarget } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** A service on 127.0.0.1 answering `{"status":"ok"}` as JSON, stopped at teardown. */
const jsonTarget = async (t: ExecutionContext) => {
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/health`, port };
};

/** A UDP port on 127.0.0.1 that never answers: the DNS monitor's resolver, never the system's. */
const silentResolver = async (t: ExecutionContext) => {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.teardown(() => socket.close());
  return `127.0.0.1:${socket.address().port}`;
};

/** The texts an input's aria-describedby points at: its hint and the server's message for it. */
const description = async (page: Page, input: Locator): Promise<string> => {
  const ids = (await input.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' | ');
};

const optionsOf = (select: Locator) => select.locator('option').allTextContents();

/** Adds a JSON assertion to the form's last assertion row: `$.status` equals `value`. */
const addJsonAssertion = async (form: Locator, path: string, value: string) => {
  await form.getByRole('button', { name: 'Add assertion' }).click();
  const row = form.getByRole('group', { name: /^Assertion \d+$/ }).last();
  await row.getByLabel('Source').selectOption('json');
  await row.getByLabel('JSONPath').fill(path);
  await row.getByLabel('Operator').selectOption('equals');
  await row.getByLabel('Value').fill(value);
  return row;
};

const monitorsOf = async (url: string, token: string, projectId: string) =>
  (await api(url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body as Array<Record<string, unknown>>;

test('monitor kinds: one of each through the form, assertions kept, heartbeat URL once, fits 1280 px', async (t) => {
  const { server, token } = await serverWithTarget(t, { jobs: true });
  const { projectId } = await projectWithKey(server.url, token, 'kinds');
  const json = await jsonTarget(t);
  const resolver = await silentResolver(t);
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, undefined, `/p/${projectId}/monitors`);
  await page.getByText('No monitor in this project yet.').waitFor();

  // http, with a header (a secret) and a JSON assertion whose path the server refuses first.
  await page.getByRole('button', { name: 'Add monitor' }).click();
  let form = page.getByRole('form', { name: 'Add monitor' });
  t.is(await form.getByLabel('Kind').inputValue(), 'http');
  await form.getByLabel('Name', { exact: true }).fill('web-api');
  await form.getByLabel('URL').fill(json.url);
  await form.getByLabel('Interval (s)').fill('10');
  await form.getByLabel('Timeout (s)').fill('5');
  const assertion = await addJsonAssertion(form, 'status', 'ok');
  t.deepEqual(
    await optionsOf(assertion.getByLabel('Source')),
    ['Status code', 'Body', 'JSON value', 'Header', 'Response time (ms)', 'Certificate days left'],
    'the sources of an http monitor',
  );
  await assertion.getByLabel('Operator').selectOption('exists');
  t.is(await assertion.getByLabel('Value').count(), 0, 'no value with exists');
  await assertion.getByLabel('Operator').selectOption('equals');
  await assertion.getByLabel('Value').fill('ok');
  await form.locator('summary', { hasText: 'Advanced' }).click();
  await form.getByRole('button', { name: 'Add header' }).click();
  await form.getByLabel('Header 1 name').fill('X-Token');
  await form.getByLabel('Header 1 value').fill('s3cret');
  t.is(await form.getByLabel('Request body').count(), 0, 'no body with GET');
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form.getByRole('alert').filter({ hasText: 'must be a JSONPath starting with $' }).waitFor();
  t.regex(await description(page, assertion.getByLabel('JSONPath')), /must be a JSONPath starting with \$/);
  await screenshot(page, 'monitors-form-assertion-error');
  await assertion.getByLabel('JSONPath').fill('$.status');
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form.waitFor({ state: 'detached' });

  // tcp: its own fields and sources.
  await page.getByRole('button', { name: 'Add monitor' }).click();
  form = page.getByRole('form', { name: 'Add monitor' });
  await form.getByLabel('Kind').selectOption('tcp');
  t.is(await form.getByLabel('URL', { exact: true }).count(), 0);
  t.is(await form.getByLabel('Expected status').count(), 0);
  await form.getByLabel('Name', { exact: true }).fill('db-port');
  await form.getByLabel('Host and port').fill(`tcp://127.0.0.1:${json.port}`);
  t.false(await form.getByLabel(/Speak TLS/).isChecked());
  await form.getByRole('button', { name: 'Add assertion' }).click();
  t.deepEqual(await optionsOf(form.getByLabel('Source')), ['Response time (ms)', 'Certificate days left']);
  await form.getByLabel('Value').fill('5000');
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form.waitFor({ state: 'detached' });

  // dns: a name, a record type and a resolver on loopback.
  await page.getByRole('button', { name: 'Add monitor' }).click();
  form = page.getByRole('form', { name: 'Add monitor' });
  await form.getByLabel('Kind').selectOption('dns');
  await form.getByLabel('Name', { exact: true }).fill('mx-record');
  await form.getByLabel('Host name').fill('example.com');
  await form.getByLabel('Record type').selectOption('MX');
  await form.getByLabel('Resolver').fill(resolver);
  await form.getByRole('button', { name: 'Add assertion' }).click();
  t.deepEqual(await optionsOf(form.getByLabel('Source')), ['DNS records', 'Response time (ms)']);
  await form.getByRole('button', { name: 'Remove assertion 1' }).click();
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form.waitFor({ state: 'detached' });

  // heartbeat: no target, no assertions; its URL shown once, with a curl line.
  await page.getByRole('button', { name: 'Add monitor' }).click();
  form = page.getByRole('form', { name: 'Add monitor' });
  await form.getByLabel('Kind').selectOption('heartbeat');
  t.is(await form.getByLabel('URL', { exact: true }).count(), 0);
  t.is(await form.getByRole('button', { name: 'Add assertion' }).count(), 0);
  await form.getByLabel('Name', { exact: true }).fill('nightly-job');
  await form.getByLabel('Grace (s)').fill('30');
  await form.getByRole('button', { name: 'Add monitor' }).click();
  const shown = page.getByRole('region', { name: 'Heartbeat URL of nightly-job' });
  await shown.waitFor();
  const beatUrl = (await shown.getByRole('figure', { name: 'Heartbeat URL' }).textContent()) ?? '';
  t.regex(beatUrl, new RegExp(`^${server.url}/v1/heartbeat/[A-Za-z0-9_-]{43}$`));
  t.is(
    await shown.getByRole('figure', { name: 'Heartbeat curl command' }).textContent(),
    `curl -fsS -m 10 --retry 3 ${beatUrl}`,
  );
  t.true(await shown.getByText('it is shown only this once').isVisible());
  t.true(await shown.getByRole('button', { name: 'Copy the heartbeat URL' }).isVisible());
  await screenshot(page, 'monitors-heartbeat-url');
  await shown.getByRole('button', { name: 'Done, I have copied it' }).click();
  await shown.waitFor({ state: 'detached' });

  const stored = await monitorsOf(server.url, token, projectId);
  t.deepEqual(
    stored.map((m) => m.type),
    ['http', 'tcp', 'dns', 'heartbeat'],
  );
  t.deepEqual(stored[0]!.assertions, [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }]);
  t.deepEqual(stored[0]!.headers, { 'X-Token': '********' });

  // After a reload the URL is gone; the edit form shows the assertion and the masked header, and
  // saves them back unchanged.
  await page.reload();
  const table = page.getByRole('table', { name: 'Monitors' });
  const row = (name: string) => table.getByRole('row').filter({ hasText: name }).first();
  await row('nightly-job').waitFor();
  t.is(await page.getByText(beatUrl).count(), 0, 'the heartbeat URL is not shown again');
  await row('web-api').getByRole('button', { name: 'Edit web-api' }).click();
  const edit = page.getByRole('form', { name: 'Edit monitor web-api' });
  t.true(await edit.getByLabel('Kind').isDisabled(), 'the kind cannot change');
  const kept = edit.getByRole('group', { name: 'Assertion 1' });
  t.is(await kept.getByLabel('Source').inputValue(), 'json');
  t.is(await kept.getByLabel('JSONPath').inputValue(), '$.status');
  t.is(await kept.getByLabel('Operator').inputValue(), 'equals');
  t.is(await kept.getByLabel('Value').inputValue(), 'ok');
  t.is(await edit.getByLabel('Header 1 value').inputValue(), '********', 'Advanced is open: a header is set');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'detached' });
  t.deepEqual((await monitorsOf(server.url, token, projectId))[0]!.assertions, stored[0]!.assertions);

  // A beat turns the heartbeat monitor UP; the strips show bars.
  const beat = await fetch(beatUrl);
  t.is(beat.status, 200);
  t.deepEqual(await beat.json(), { status: 'recorded' });
  await row('nightly-job').getByText('UP', { exact: true }).waitFor();
  await row('nightly-job').getByText('Beat received').waitFor();
  const strip = (name: string) => row(name).getByRole('img', { name: new RegExp(`checks of ${name}`) });
  await row('nightly-job').getByRole('img', { name: 'The last check of nightly-job: all OK' }).waitFor();
  await row('web-api')
    .getByRole('img', { name: /^Last \d+ checks of web-api/ })
    .waitFor();
  t.true((await strip('web-api').locator('.strip-bar.ok, .strip-bar.failed').count()) >= 1, 'a bar per check');
  t.true(
    ((await strip('web-api').locator('.strip-bar:not(.blank)').first().getAttribute('title')) ?? '').length > 0,
    'each bar says its time and result',
  );
  t.true(await row('mx-record').getByText(`example.com MX @ ${resolver}`).isVisible());

  // The whole table fits 1280 × 800, its actions inside the viewport.
  t.deepEqual(page.viewportSize(), { width: 1280, height: 800 });
  const actions = [table.getByRole('columnheader', { name: 'Actions' }), ...(await table.locator('td.actions').all())];
  t.is(actions.length, 5);
  for (const cell of actions) {
    const box = await cell.boundingBox();
    t.truthy(box);
    t.true(box!.x + box!.width <= 1280, `actions end at ${box!.x + box!.width}`);
  }
  t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= 1280'), 'no horizontal page scroll');
  t.true(
    await table.evaluate((el) => el.parentElement!.scrollWidth <= el.parentElement!.clientWidth),
    'the table does not scroll sideways either',
  );
  await screenshot(page, 'monitors-kinds');
  t.deepEqual(errors, []);
});

test('monitor kinds: Test now shows each assertion with what was received', async (t) => {
  const { server, token } = await serverWithTarget(t);
  const { projectId } = await projectWithKey(server.url, token, 'tests');
  const json = await jsonTarget(t);
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, undefined, `/p/${projectId}/monitors`);
  await page.getByRole('button', { name: 'Add monitor' }).click();
  const form = page.getByRole('form', { name: 'Add monitor' });
  await form.getByLabel('Name', { exact: true }).fill('json-api');
  await form.getByLabel('URL').fill(json.url);
  await form.getByLabel(/Enabled/).uncheck();
  await addJsonAssertion(form, '$.status', 'ok');
  await form.getByRole('button', { name: 'Add assertion' }).click();
  const second = form.getByRole('group', { name: 'Assertion 2' });
  await second.getByLabel('Source').selectOption('body');
  await second.getByLabel('Operator').selectOption('contains');
  await second.getByLabel('Value').fill('nope');
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form.waitFor({ state: 'detached' });

  const table = page.getByRole('table', { name: 'Monitors' });
  await table.getByRole('button', { name: 'Test json-api now' }).click();
  const result = table.getByRole('status', { name: 'Test of json-api' });
  await result.getByText(/Test at .*: /).waitFor();
  const results = result.getByRole('list', { name: 'Assertion results' });
  await results.waitFor();
  const items = results.getByRole('listitem');
  t.is(await items.count(), 2);
  t.regex((await items.nth(0).textContent()) ?? '', /^Passed: JSON value \$\.status equals ok \(received .*ok.*\)$/);
  t.regex((await items.nth(1).textContent()) ?? '', /^Failed: Body contains nope \(received /);
  await screenshot(page, 'monitors-test-assertions');
  await table.getByRole('button', { name: 'Close the test of json-api' }).click();
  // The click returns before React has rendered the row away.
  await result.waitFor({ state: 'detached' });
  t.is(await result.count(), 0);
  t.deepEqual(errors, []);
});
