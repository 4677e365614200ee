import test from 'ava';
import { api, login, startTestServer, type TestServer } from '../helpers/server.ts';

/** The order in which every operation's declaration is applied (src/http/operations/mount.ts,
 *  docs/api.md "How a request is checked"): a request with two faults is answered for the one
 *  checked first. */

let server: TestServer;
let admin: string;
let member: string;
let auditor: string;
const ids: Record<string, string> = {};

test.before(async () => {
  server = await startTestServer();
  admin = await login(server.url);
  const project = async (name: string) =>
    (await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name } })).body.id;
  ids.own = await project('own');
  ids.other = await project('other');
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'member@example.com', password: 'member password', role: 'member', project_ids: [ids.own] },
  });
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'auditor@example.com', password: 'auditor password', role: 'auditor', project_ids: [ids.own] },
  });
  member = await login(server.url, 'member@example.com', 'member password');
  auditor = await login(server.url, 'auditor@example.com', 'auditor password');
  const monitor = { project_id: ids.other, name: 'theirs', url: 'https://example.com/' };
  ids.monitor = (await api(server.url, 'POST', '/v1/monitors', { token: admin, body: monitor })).body.id;
});
test.after.always(() => server?.stop());

const codeOf = async (method: string, url: string, options: Parameters<typeof api>[3] = {}) => {
  const res = await api(server.url, method, url, options);
  return `${res.status} ${res.body.error?.code ?? ''}`.trim();
};

test('the token before the query, the query before the project it names', async (t) => {
  t.is(await codeOf('GET', '/v1/audit?bogus=1'), '401 unauthorized');
  t.is(await codeOf('GET', `/v1/audit?project_id=${ids.other}&limit=0`, { token: member }), '400 validation_error');
  t.is(
    await codeOf('GET', `/v1/audit?project_id=${ids.other}&start_date=2026-09-02&end_date=2026-09-01`, {
      token: member,
    }),
    '400 validation_error',
    'the rule between dates is part of the query',
  );
  t.is(await codeOf('GET', `/v1/audit?project_id=${ids.other}`, { token: member }), '404 not_found');
});

test('the query before the resource the path names, the resource before the role', async (t) => {
  t.is(await codeOf('GET', `/v1/monitors/${ids.monitor}/history?limit=0`, { token: member }), '400 validation_error');
  t.is(await codeOf('GET', `/v1/monitors/${ids.monitor}/history`, { token: member }), '404 not_found');
  t.is(await codeOf('DELETE', `/v1/monitors/${ids.monitor}`, { token: auditor }), '404 not_found');
  t.is(await codeOf('PUT', `/v1/projects/${ids.own}/retention`, { token: member, body: {} }), '403 forbidden');
});

test('the role before the other path parameters and the body; the body before the project it names', async (t) => {
  t.is(await codeOf('PUT', '/v1/users/not-a-uuid', { token: member, body: { bogus: 1 } }), '403 forbidden');
  t.is(await codeOf('PUT', '/v1/users/not-a-uuid', { token: admin, body: { bogus: 1 } }), '404 not_found');
  t.is(await codeOf('DELETE', `/v1/projects/${ids.own}/api-keys/not-a-uuid`, { token: auditor }), '403 forbidden');
  const theirs = { project_id: ids.other, name: 'x', url: 'https://example.com/' };
  t.is(await codeOf('POST', '/v1/monitors', { token: auditor, body: theirs }), '403 forbidden');
  t.is(
    await codeOf('POST', '/v1/monitors', { token: member, body: { ...theirs, interval_seconds: 1 } }),
    '400 validation_error',
  );
  t.is(
    await codeOf('POST', '/v1/monitors', { token: member, body: { ...theirs, url: 'http://169.254.169.254/' } }),
    '400 validation_error',
    "a check beyond the body's shape comes before the project it names",
  );
  t.is(await codeOf('POST', '/v1/monitors', { token: member, body: theirs }), '404 not_found');
});

test('for a password, whose role depends on the user the path names, the path comes first', async (t) => {
  t.is(await codeOf('POST', '/v1/users/not-a-uuid/password', { token: member, body: {} }), '404 not_found');
  const { body: me } = await api(server.url, 'GET', '/v1/auth/me', { token: admin });
  t.is(await codeOf('POST', `/v1/users/${me.id}/password`, { token: member, body: {} }), '403 forbidden');
});
