import test from 'ava';
import { apiOperations } from '../../src/http/operations/table.ts';
import { api, login, projectWithKey, sampleEvent, startTestServer, type TestServer } from '../helpers/server.ts';

/** Nothing crosses a tenant: a viewer token for tenant A of project P asks every GET operation of
 *  the API, with every path parameter set to what belongs to others (tenant B's event, another
 *  project's event, that project itself) and every filter that could widen it. No answer may hold
 *  a trace of B or of the other project: their paths, identifiers or e-mails. */

const MARKERS = ['globex-secret', 'gus@globex', 'other-secret', 'olga@other'];

let server: TestServer;
let viewer: string;
const ids: Record<string, string> = {};

test.before(async () => {
  server = await startTestServer();
  const token = await login(server.url);
  const p = await projectWithKey(server.url, token, 'saas');
  const other = await projectWithKey(server.url, token, 'other');
  ids.project = p.projectId;
  ids.otherProject = other.projectId;
  const send = async (apiKey: string, name: string, overrides: Record<string, unknown>) => {
    const sent = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(overrides) });
    if (sent.status !== 202) throw new Error(`ingest ${sent.status}`);
    ids[name] = sent.body.id;
  };
  await send(p.apiKey, 'mine', { tenant_id: 'acme', identifier: 'ann', path: '/acme/orders', session_id: 's-acme' });
  await send(p.apiKey, 'b', {
    tenant_id: 'globex',
    identifier: 'gus',
    user_email: 'gus@globex.example',
    path: '/globex-secret/orders',
    session_id: 's-globex',
  });
  await send(other.apiKey, 'other', {
    tenant_id: 'acme',
    identifier: 'olga',
    user_email: 'olga@other.example',
    path: '/other-secret/orders',
    session_id: 's-other',
  });
  for (let i = 0; i < 250; i += 1) {
    const list = await api(server.url, 'GET', '/v1/audit?event_type=http', { token });
    if (list.body.pagination?.totalItems === 3) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const issued = await api(server.url, 'POST', `/v1/projects/${ids.project}/viewer-tokens`, {
    token,
    body: { tenant_id: 'acme' },
  });
  viewer = issued.body.token;
});
test.after.always(() => server.stop());

const WIDENING = [
  '',
  '?project_id={otherProject}',
  '?tenant_id=globex',
  '?identifier=gus',
  '?q=globex',
  '?q=tenant_id:globex',
  '?event_type=system.access',
  '?limit=100&sort_by=path',
  '?format=json',
];

test('no GET operation answers a viewer token with anything of another tenant or project', async (t) => {
  const operations = Object.values(apiOperations({ batchMaxEvents: 1000 })).flatMap((group) =>
    Object.values(group as Record<string, { method: string; path: string }>),
  );
  const gets = operations.filter((op) => op.method === 'get');
  t.true(gets.length > 40, `${gets.length} GET operations`);
  let asked = 0;
  let answered = 0;
  for (const op of gets) {
    const names = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const fillings = names.length === 0 ? [{}] : ['b', 'other', 'otherProject'].map((id) => ({ id }));
    for (const filling of fillings) {
      let path = op.path;
      for (const name of names) {
        const value = name === 'session_id' ? 's-globex' : ids[(filling as { id: string }).id]!;
        path = path.replace(`:${name}`, value);
      }
      for (const query of WIDENING) {
        const url = path + query.replace('{otherProject}', ids.otherProject!);
        const res = await fetch(server.url + url, { headers: { authorization: `Bearer ${viewer}` } });
        const text = await res.text();
        asked += 1;
        if (res.status === 200) answered += 1;
        for (const marker of MARKERS) t.false(text.includes(marker), `${url} (${res.status}) holds ${marker}`);
      }
    }
  }
  // The probe reached the reads a viewer may make, not only refusals.
  t.true(answered >= 5, `${answered} of ${asked} answered 200`);
  const mine = await fetch(`${server.url}/v1/audit`, { headers: { authorization: `Bearer ${viewer}` } });
  t.true((await mine.text()).includes('/acme/orders'), "the viewer's own event is there");
});
