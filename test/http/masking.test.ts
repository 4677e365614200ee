import test from 'ava';
import {
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

let server: TestServer;
let token: string;
let main: { projectId: string; apiKey: string };
let other: { projectId: string; apiKey: string };

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'masked');
  other = await projectWithKey(server.url, token, 'other');
});
test.after.always(() => server.stop());

const rulesPath = (id: string) => `/v1/projects/${id}/masking`;

const stored = async (id: string) =>
  eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${id}`, { token });
    return r.status === 200 ? r.body : undefined;
  });

test('GET: a project without rules of its own has none', async (t) => {
  const res = await api(server.url, 'GET', rulesPath(other.projectId), { token });
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    project_id: other.projectId,
    keys: [],
    patterns: [],
    scan_limit_chars: null,
    updated_at: null,
  });
});

test(
  'PUT: the rules apply to the next event ingested, ' + 'before it reaches the log; other projects keep theirs',
  async (t) => {
    const put = await api(server.url, 'PUT', rulesPath(main.projectId), {
      token,
      body: {
        keys: ['Session-Id', 'session_id', 'internal_ref'],
        patterns: ['sk_live_[0-9a-zA-Z]{8,}', '(?i)^bearer '],
      },
    });
    t.is(put.status, 200);
    t.like(put.body, {
      project_id: main.projectId,
      keys: ['Session-Id', 'internal_ref'],
      patterns: ['sk_live_[0-9a-zA-Z]{8,}', '(?i)^bearer '],
    });
    t.true(Number.isInteger(put.body.scan_limit_chars) && put.body.scan_limit_chars > 1000);
    t.truthy(put.body.updated_at);
    t.deepEqual((await api(server.url, 'GET', rulesPath(main.projectId), { token })).body, put.body);

    const body = sampleEvent({
      request_body: {
        SESSIONID: 'sess-1',
        note: 'key sk_live_abcd1234EFGH here',
        password: 'hunter2',
        card: '4111 1111 1111 1111',
      },
      query_params: { 'internal-ref': 'ref-9', q: 'BEARER xyz' },
      response_body: { items: [{ session_id: 'sess-2', ok: 'fine' }] },
    });
    const res = await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body });
    t.is(res.status, 202);
    const raw = JSON.stringify(await server.runtime.log.readStream(`audit-${main.projectId}`));
    for (const secret of ['sess-1', 'sk_live_abcd1234EFGH', 'hunter2', 'ref-9', 'BEARER xyz', 'sess-2', '4111 1111'])
      t.false(raw.includes(secret), secret);
    const event = await stored(res.body.id);
    t.deepEqual(event.request_body, {
      SESSIONID: '********',
      note: '********',
      password: '********',
      card: '**** **** **** 1111',
    });
    t.deepEqual(event.query_params, { 'internal-ref': '********', q: '********' });
    t.deepEqual(event.response_body, { items: [{ session_id: '********', ok: 'fine' }] });

    const elsewhere = await api(server.url, 'POST', '/v1/audit', { apiKey: other.apiKey, body });
    const plain = await stored(elsewhere.body.id);
    t.deepEqual(plain.request_body, {
      SESSIONID: 'sess-1',
      note: 'key sk_live_abcd1234EFGH here',
      password: '********',
      card: '**** **** **** 1111',
    });

    // The change is an event in the project's stream, and setting the same rules records nothing.
    const types = async () => (await server.runtime.log.readStream(`project-${main.projectId}`)).map((e) => e.type);
    t.deepEqual(
      (await types()).filter((type) => type === 'MaskingRulesSet'),
      ['MaskingRulesSet'],
    );
    const again = await api(server.url, 'PUT', rulesPath(main.projectId), {
      token,
      body: { keys: ['Session-Id', 'session_id', 'internal_ref'], patterns: put.body.patterns },
    });
    t.is(again.status, 200);
    t.is(again.body.updated_at, put.body.updated_at);
    t.deepEqual(
      (await types()).filter((type) => type === 'MaskingRulesSet'),
      ['MaskingRulesSet'],
    );

    // Emptied, the rules stop applying at once.
    const cleared = await api(server.url, 'PUT', rulesPath(main.projectId), {
      token,
      body: { keys: [], patterns: [] },
    });
    t.like(cleared.body, { keys: [], patterns: [], scan_limit_chars: null });
    const after = await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body });
    t.is((await stored(after.body.id)).request_body.SESSIONID, 'sess-1');
  },
);

test('bad rules are 400 naming each faulty entry, and change nothing', async (t) => {
  const before = (await api(server.url, 'GET', rulesPath(other.projectId), { token })).body;
  const shape = await api(server.url, 'PUT', rulesPath(other.projectId), {
    token,
    body: { keys: ['ok', 7, ''], patterns: 'x', extra: true },
  });
  t.is(shape.status, 400);
  t.is(shape.body.error.code, 'validation_error');
  t.deepEqual(shape.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'extra',
    'keys.1',
    'keys.2',
    'patterns',
  ]);
  const content = await api(server.url, 'PUT', rulesPath(other.projectId), {
    token,
    body: { keys: ['_-_'], patterns: ['fine', '(?=x)', '.*', '[a-z]{900}'] },
  });
  t.is(content.status, 400);
  t.deepEqual(
    content.body.error.details.map((d: { path: string }) => d.path),
    ['keys.0', 'patterns.1', 'patterns.2', 'patterns.3'],
  );
  t.regex(content.body.error.details[1].message, /^not a valid RE2 pattern/);
  t.regex(content.body.error.details[2].message, /matches the empty string/);
  t.regex(content.body.error.details[3].message, /instructions, more than 200/);
  const tooMany = await api(server.url, 'PUT', rulesPath(other.projectId), {
    token,
    body: { keys: [], patterns: Array.from({ length: 21 }, (_, i) => `p${i}`) },
  });
  t.deepEqual(tooMany.body.error.details, [
    { path: 'patterns', message: 'must be an array of at most 20 items, each a string of 1 to 200 characters' },
  ]);
  for (const raw of ['[]', 'null', '{'])
    t.is(
      (
        await api(server.url, 'PUT', rulesPath(other.projectId), {
          token,
          body: raw,
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
      raw,
    );
  t.is(
    (
      await api(server.url, 'PUT', rulesPath(other.projectId), {
        token,
        body: 'keys=a',
        headers: { 'content-type': 'text/plain' },
      })
    ).status,
    415,
  );
  t.deepEqual((await api(server.url, 'GET', rulesPath(other.projectId), { token })).body, before);
});

test(
  'unknown or invisible projects are 404; ' + 'auditors read but do not change; members change; no token is 401',
  async (t) => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    t.is((await api(server.url, 'GET', rulesPath(unknown), { token })).status, 404);
    t.is((await api(server.url, 'PUT', rulesPath(unknown), { token, body: { keys: [], patterns: [] } })).status, 404);
    t.is((await api(server.url, 'GET', rulesPath('not-a-uuid'), { token })).status, 404);
    const seen = await projectWithKey(server.url, token, 'seen');
    await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email: 'maud@example.com', password: 'auditor-password', role: 'auditor', project_ids: [seen.projectId] },
    });
    await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email: 'mem@example.com', password: 'member-password', role: 'member', project_ids: [seen.projectId] },
    });
    const auditor = await login(server.url, 'maud@example.com', 'auditor-password');
    const member = await login(server.url, 'mem@example.com', 'member-password');
    t.is((await api(server.url, 'GET', rulesPath(seen.projectId), { token: auditor })).status, 200);
    t.is(
      (await api(server.url, 'PUT', rulesPath(seen.projectId), { token: auditor, body: { keys: ['k'], patterns: [] } }))
        .status,
      403,
    );
    t.is(
      (await api(server.url, 'GET', rulesPath(main.projectId), { token: auditor })).status,
      404,
      'a project the auditor cannot see',
    );
    t.is(
      (await api(server.url, 'PUT', rulesPath(main.projectId), { token: member, body: { keys: ['k'], patterns: [] } }))
        .status,
      404,
      'nor the member',
    );
    const byMember = await api(server.url, 'PUT', rulesPath(seen.projectId), {
      token: member,
      body: { keys: ['k'], patterns: [] },
    });
    t.is(byMember.status, 200);
    t.deepEqual(byMember.body.keys, ['k']);
    t.is((await api(server.url, 'GET', rulesPath(seen.projectId))).status, 401);
  },
);
