import test from 'ava';
import pino from 'pino';
import { erasureJobOf } from '../../src/compose/jobs.ts';
import { projectStream } from '../../src/domain/streams.ts';
import type { ErasureRequested } from '../../src/domain/retention.ts';
import { eraseIdentifier } from '../../src/commands/retention.ts';
import { auditRecords, send } from '../helpers/retention.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

/** Retention and erasure settings through the API, and erasure runs: one cut short and resumed,
 *  and the worker's job (the end-to-end runs on a data dir are in retention.test.ts). */

const SILENT = pino({ level: 'silent' });

test(
  'retention and erasure settings: bad input is a 400 naming the field, ' +
    'only admins change them, other projects are 404',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token);
    const base = `/v1/projects/${projectId}/retention`;
    t.like((await api(server.url, 'GET', base, { token })).body, {
      project_id: projectId,
      retention_days: null,
      updated_at: null,
      removed_total: 0,
      erased_total: 0,
    });
    for (const [body, field] of [
      [{ retention_days: 0 }, 'retention_days'],
      [{ retention_days: 36_501 }, 'retention_days'],
      [{ retention_days: '7' }, 'retention_days'],
      [{ retention_days: 1.5 }, 'retention_days'],
      [{}, 'retention_days'],
      [{ retention_days: 7, keep: true }, 'keep'],
      [JSON.parse('{"retention_days": 7, "__proto__": {"admin": true}}') as object, '__proto__'],
    ] as const) {
      const res = await api(server.url, 'PUT', base, { token, body });
      t.is(res.status, 400, JSON.stringify(body));
      t.true(
        res.body.error.details.some((d: { path: string }) => d.path.includes(field)),
        `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`,
      );
    }
    for (const body of [{ identifier: '' }, { identifier: 'x'.repeat(101) }, { identifier: 7 }, {}]) {
      const res = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, { token, body });
      t.is(res.status, 400, JSON.stringify(body));
      t.true(
        res.body.error.details.some((d: { path: string }) => d.path.includes('identifier')),
        JSON.stringify(res.body),
      );
    }
    const ok = await api(server.url, 'PUT', base, { token, body: { retention_days: 30 } });
    t.like(ok.body, { retention_days: 30 });
    const updatedAt = ok.body.updated_at as string;
    t.truthy(updatedAt);
    t.is(
      (await api(server.url, 'PUT', base, { token, body: { retention_days: 30 } })).body.updated_at,
      updatedAt,
      'a PUT that changes nothing records nothing',
    );
    t.like((await api(server.url, 'PUT', base, { token, body: { retention_days: null } })).body, {
      retention_days: null,
    });

    const member = await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email: 'm@example.com', password: 'member password 1', role: 'member', project_ids: [projectId] },
    });
    t.is(member.status, 201, JSON.stringify(member.body));
    const memberToken = await login(server.url, 'm@example.com', 'member password 1');
    t.is((await api(server.url, 'GET', base, { token: memberToken })).status, 200);
    t.is((await api(server.url, 'PUT', base, { token: memberToken, body: { retention_days: 1 } })).status, 403);
    t.is(
      (
        await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
          token: memberToken,
          body: { identifier: 'a' },
        })
      ).status,
      403,
    );
    const asked = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
      token,
      body: { identifier: 'a' },
    });
    t.is(asked.status, 202);
    t.is((await api(server.url, 'GET', `/v1/projects/${projectId}/erasures`, { token: memberToken })).status, 403);
    t.is(
      (
        await api(server.url, 'GET', `/v1/projects/${projectId}/erasures/${asked.body.id as string}`, {
          token: memberToken,
        })
      ).status,
      403,
    );
    t.is((await api(server.url, 'GET', `/v1/projects/${projectId}/erasures/not-a-uuid`, { token })).status, 404);
    t.is((await api(server.url, 'GET', `/v1/projects/${projectId}/erasures?page=0`, { token })).status, 400);
    const { projectId: unseen } = await projectWithKey(server.url, token, 'unseen');
    t.is((await api(server.url, 'GET', `/v1/projects/${unseen}/retention`, { token: memberToken })).status, 404);
    t.is(
      (await api(server.url, 'PUT', '/v1/projects/not-a-uuid/retention', { token, body: { retention_days: 1 } }))
        .status,
      404,
    );
  },
);

test(
  'an erasure cut short goes on from where it stopped on the next run, ' +
    'counts each event once, and completes its request once',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const dave = await send(
      server.url,
      apiKey,
      Array.from({ length: 7 }, (_, i) =>
        sampleEvent({ identifier: 'dave', path: `/d/${i}`, user_email: 'dave@example.com' }),
      ),
    );
    await send(server.url, apiKey, [sampleEvent({ identifier: 'erin' })]);
    const asked = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
      token,
      body: { identifier: 'dave' },
    });
    t.is(asked.status, 202, JSON.stringify(asked.body));
    const status = async () =>
      (await api(server.url, 'GET', `/v1/projects/${projectId}/erasures/${asked.body.id as string}`, { token })).body;
    const requests = (await server.runtime.log.readStream(projectStream(projectId))).filter(
      (r) => r.type === 'ErasureRequested',
    );
    t.is(requests.length, 1);
    const request = requests[0]!.data as ErasureRequested;

    // Two pages of two, then the worker dies.
    let pages = 0;
    const ctx = { actor: 'system:erasure', correlationId: 'c', now: () => new Date() };
    await t.throwsAsync(
      eraseIdentifier(
        {
          log: server.runtime.log,
          pageSize: 2,
          restFraction: 0,
          caughtUp: async (position) => {
            await server.runtime.caughtUp(['auditEvents'], position);
          },
          redactable: async (query, after, limit) => {
            pages += 1;
            if (pages === 3) throw new Error('the worker died');
            return server.runtime.readModels.auditEvents.redactable(query, after, limit);
          },
        },
        request,
        ctx,
      ),
      { message: 'the worker died' },
    );
    const replaced = (await auditRecords(server, projectId)).filter((r) => r.type === 'RecordRedacted');
    t.is(replaced.length, 4, 'two pages were replaced in the log');
    t.like(await status(), { status: 'pending', erased: null });

    await erasureJobOf(server.runtime, 60_000, SILENT).run();
    t.like(await status(), { status: 'done', erased: dave.length }, 'the records the first run replaced count too');
    const records = await auditRecords(server, projectId);
    t.is(
      records.filter((r) => r.type === 'RecordRedacted').length,
      dave.length,
      "every one of dave's records, and no other",
    );
    t.false(records.some((r) => JSON.stringify(r.data).includes('dave')));

    // Run again (a job that ran before its read model showed the request done): nothing more.
    await erasureJobOf(server.runtime, 60_000, SILENT).run();
    t.is(
      await eraseIdentifier(
        {
          log: server.runtime.log,
          caughtUp: async () => undefined,
          redactable: (query, after, limit) => server.runtime.readModels.auditEvents.redactable(query, after, limit),
        },
        request,
        ctx,
      ),
      0,
    );
    const erasedEvents = (await server.runtime.log.readStream(projectStream(projectId))).filter(
      (r) => r.type === 'IdentifierErased',
    );
    t.is(erasedEvents.length, 1, 'the request is completed once');
    t.like((await api(server.url, 'GET', `/v1/projects/${projectId}/retention`, { token })).body, {
      erased_total: dave.length,
    });
  },
);

test("the worker's erasure job carries out a request within seconds", async (t) => {
  const server = await startTestServer({ jobs: true });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  const sent = await send(server.url, apiKey, [
    sampleEvent({ identifier: 'fay', user_email: 'fay@example.com' }),
    sampleEvent({ identifier: 'fay' }),
  ]);
  const asked = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
    token,
    body: { identifier: 'fay' },
  });
  t.is(asked.status, 202);
  const done = await eventually(async () => {
    const res = await api(server.url, 'GET', asked.headers.get('location')!, { token });
    return res.body.status === 'done' ? res.body : undefined;
  }, 15_000);
  t.like(done, { erased: sent.length });
  t.is((await api(server.url, 'GET', `/v1/audit/${sent[0]!.id}`, { token })).body.identifier, '[erased]');
});
