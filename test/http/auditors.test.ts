import test from 'ava';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createPublicKey, verify } from 'node:crypto';
import {
  EMPTY_FRONTIER,
  appendLeaf,
  frontierRoot,
  leafBytes,
  leafHash,
  type Frontier,
} from '../../src/domain/merkle.ts';
import { rebuildReadModels } from '../../src/compose/rebuild.ts';
import { openSqliteReadModels, projectionRunners } from '../../src/compose/read-models.ts';
import { verifyConsistency, verifyInclusion } from '../helpers/rfc9162.ts';
import {
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  tempDir,
  type TestServer,
} from '../helpers/server.ts';

/** The auditors' endpoints on a real server with the checkpoint sealer on (every 200 ms), a
 *  witness file and a witness URL. */

interface Line {
  leaf_index: number;
  position: string;
  stream?: string;
  revision?: number;
  type?: string;
  id?: string;
  data?: unknown;
  metadata?: { recorded_at: string };
  recorded_at?: string;
  leaf_hash: string;
  missing?: true;
}

const witnessed: string[] = [];
let witnessServer: http.Server;
let witnessFile: string;
let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;

test.before(async () => {
  witnessServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      witnessed.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => witnessServer.listen(0, '127.0.0.1', resolve));
  witnessFile = path.join(tempDir(), 'witness.txt');
  server = await startTestServer({
    checkpoints: true,
    env: {
      WATCHLOG_CHECKPOINT_INTERVAL_MS: '200',
      WATCHLOG_LOG_ORIGIN: 'audit.example.test',
      WATCHLOG_WITNESS_URL: `http://127.0.0.1:${(witnessServer.address() as AddressInfo).port}/witness`,
      WATCHLOG_WITNESS_FILE: witnessFile,
    },
  });
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token));
  for (let i = 0; i < 12; i += 1)
    await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ path: `/a/${i}` }) });
  await api(server.url, 'POST', '/v1/audit/batch', {
    apiKey,
    body: [{ ...sampleEvent(), idempotency_key: 'k-1' }, sampleEvent({ path: '/b' })],
  });
  await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/' },
  });
});
test.after.always(async () => {
  await server.stop();
  await new Promise<void>((resolve) => witnessServer.close(() => resolve()));
});

const replay = async (query = ''): Promise<{ lines: Line[]; headers: Headers }> => {
  const res = await fetch(`${server.url}/v1/stream?project_id=${projectId}${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  const text = await res.text();
  return {
    lines: text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line),
    headers: res.headers,
  };
};

/** The latest checkpoint once it covers every record of the project. */
const settled = async () =>
  eventually(async () => {
    const size = (await replay()).lines.length;
    const latest = await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${projectId}`, { token });
    return latest.status === 200 && latest.body.size === size && size >= 16
      ? (latest.body as { size: number; root: string; note: string })
      : undefined;
  }, 15_000);

const foldRoot = (lines: readonly Line[]) =>
  frontierRoot(
    lines.reduce<Frontier>((f, l) => appendLeaf(f, Buffer.from(l.leaf_hash, 'base64')).frontier, EMPTY_FRONTIER),
  );

test(
  'the stream: every record of the project in log order with its leaf; ' + 'each record gives its leaf hash again',
  async (t) => {
    await settled();
    const { lines, headers } = await replay();
    t.is(headers.get('content-type'), 'application/x-ndjson');
    t.deepEqual(
      lines.map((l) => l.leaf_index),
      lines.map((_, i) => i),
    );
    t.true(lines.every((l, i) => i === 0 || BigInt(l.position) > BigInt(lines[i - 1]!.position)));
    const types = new Set(lines.map((l) => l.type));
    for (const type of ['ProjectCreated', 'ApiKeyIssued', 'AuditEventRecorded', 'MonitorCreated'])
      t.true(types.has(type), type);
    t.false(types.has('CheckpointSigned'), 'checkpoints are not leaves');
    t.true(
      lines.some((l) => l.stream === `audit-${projectId}-key-k-1`),
      'an event stored under its idempotency key is a record of its project',
    );
    for (const l of lines) {
      const bytes = leafBytes({
        id: l.id!,
        stream: l.stream!,
        revision: l.revision!,
        type: l.type!,
        data: l.data,
        metadata: l.metadata,
      });
      t.is(leafHash(bytes).toString('base64'), l.leaf_hash, `leaf ${l.leaf_index}`);
      t.is(l.recorded_at, l.metadata!.recorded_at);
    }
    t.is(Number(headers.get('watchlog-tree-size')), lines.length);
  },
);

test('paging: limit and Watchlog-Next-From walk the whole stream; HEAD answers the headers', async (t) => {
  const { lines: all } = await replay();
  const pages: Line[] = [];
  let from = '0';
  for (;;) {
    const { lines, headers } = await replay(`&from=${from}&limit=5`);
    pages.push(...lines);
    const next = headers.get('watchlog-next-from');
    if (next === null) break;
    t.is(lines.length, 5);
    from = next;
  }
  // Other tests append meanwhile: the walk may go on past what the first replay saw.
  t.deepEqual(
    pages.map((l) => l.leaf_index),
    Array.from({ length: pages.length }, (_, i) => i),
    'every leaf once, in order',
  );
  t.deepEqual(
    pages.slice(0, all.length).map((l) => l.leaf_index),
    all.map((l) => l.leaf_index),
  );
  const head = await fetch(`${server.url}/v1/stream?project_id=${projectId}&limit=5`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(head.status, 200);
  t.truthy(head.headers.get('watchlog-next-from'));
});

test(
  'checkpoints: the latest note is signed by the published key over origin, size and root; ' + 'witnesses got copies',
  async (t) => {
    const latest = await settled();
    const key = (await api(server.url, 'GET', '/v1/checkpoints/key', { token })).body as {
      key_name: string;
      key_id: string;
      verifier_key: string;
      public_key: string;
      public_key_pem: string;
    };
    t.is(key.key_name, 'audit.example.test');
    t.regex(key.verifier_key, /^audit\.example\.test\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    const [text, signatureLine] = latest.note.split('\n\n');
    t.is(text, `audit.example.test/projects/${projectId}\n${latest.size}\n${latest.root}`);
    const [dash, name, signature] = signatureLine!.trim().split(' ');
    t.is(dash, '\u2014');
    t.is(name, key.key_name);
    const bytes = Buffer.from(signature!, 'base64');
    t.is(bytes.subarray(0, 4).toString('hex'), key.key_id);
    t.true(verify(null, Buffer.from(`${text}\n`), createPublicKey(key.public_key_pem), bytes.subarray(4)));
    // Other tests add records meanwhile: the checkpoint signs the first `size`.
    t.is(
      Buffer.from(latest.root, 'base64').toString('hex'),
      foldRoot((await replay()).lines.slice(0, latest.size)).toString('hex'),
    );
    await eventually(
      async () =>
        witnessed.includes(latest.note) && readFileSync(witnessFile, 'utf8').includes(latest.note) ? true : undefined,
      5000,
    );
  },
);

test(
  'proofs: inclusion of every leaf and consistency between two sizes verify by RFC 9162; ' +
    'sizes beyond the tree are 400',
  async (t) => {
    const latest = await settled();
    const lines = (await replay()).lines.slice(0, latest.size);
    const root = Buffer.from(latest.root, 'base64');
    for (const index of [0, 1, 7, latest.size - 1]) {
      const res = await api(
        server.url,
        'GET',
        `/v1/proofs/inclusion?project_id=${projectId}&index=${index}&size=${latest.size}`,
        { token },
      );
      t.is(res.status, 200);
      t.is(res.body.leaf_hash, lines[index]!.leaf_hash);
      t.true(
        verifyInclusion(
          index,
          latest.size,
          Buffer.from(res.body.leaf_hash, 'base64'),
          res.body.proof.map((p: string) => Buffer.from(p, 'base64')),
          root,
        ),
        `leaf ${index}`,
      );
    }
    const from = 5;
    const consistency = await api(
      server.url,
      'GET',
      `/v1/proofs/consistency?project_id=${projectId}&from=${from}&to=${latest.size}`,
      { token },
    );
    t.true(
      verifyConsistency(
        from,
        latest.size,
        foldRoot(lines.slice(0, from)),
        root,
        consistency.body.proof.map((p: string) => Buffer.from(p, 'base64')),
      ),
    );
    const beyond = await api(
      server.url,
      'GET',
      `/v1/proofs/inclusion?project_id=${projectId}&index=0&size=${lines.length + 100}`,
      { token },
    );
    t.is(beyond.status, 400);
    t.is(beyond.body.error.details[0].path, 'size');
    t.is(
      (await api(server.url, 'GET', `/v1/proofs/inclusion?project_id=${projectId}&index=3&size=3`, { token })).status,
      400,
    );
    t.is(
      (await api(server.url, 'GET', `/v1/proofs/consistency?project_id=${projectId}&from=4&to=3`, { token })).status,
      400,
    );
    t.is((await api(server.url, 'GET', '/v1/stream', { token })).status, 400, 'a project is required');
  },
);

test("scope: another project's member gets 404; an auditor of the project reads; no token is 401", async (t) => {
  const other = await projectWithKey(server.url, token, 'other');
  const member = await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'm-other@example.com', password: 'long password 1', role: 'member', project_ids: [other.projectId] },
  });
  t.is(member.status, 201);
  const auditor = await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'aud@example.com', password: 'long password 2', role: 'auditor', project_ids: [projectId] },
  });
  t.is(auditor.status, 201);
  const memberToken = await login(server.url, 'm-other@example.com', 'long password 1');
  const auditorToken = await login(server.url, 'aud@example.com', 'long password 2');
  t.is((await api(server.url, 'GET', `/v1/stream?project_id=${projectId}`, { token: memberToken })).status, 404);
  t.is(
    (await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${projectId}`, { token: memberToken })).status,
    404,
  );
  t.is(
    (await api(server.url, 'GET', `/v1/stream?project_id=${projectId}&limit=1`, { token: auditorToken })).status,
    200,
  );
  t.is(
    (
      await api(server.url, 'GET', `/v1/proofs/consistency?project_id=${projectId}&from=1&to=2`, {
        token: auditorToken,
      })
    ).status,
    200,
  );
  t.is((await api(server.url, 'GET', `/v1/stream?project_id=${projectId}`)).status, 401);
});

test(
  'live tail: server-sent events of what there is, ' + 'then of what comes; Last-Event-ID resumes after it',
  async (t) => {
    const { lines } = await replay();
    const controller = new AbortController();
    t.teardown(() => controller.abort());
    const res = await fetch(`${server.url}/v1/stream?project_id=${projectId}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'last-event-id': lines[lines.length - 3]!.position,
      },
      signal: controller.signal,
    });
    t.regex(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    const events: Array<{ id: string; line: Line }> = [];
    let buffer = '';
    const read = async (count: number) => {
      while (events.length < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the tail ended');
        buffer += Buffer.from(value).toString();
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const id = /^id: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (id && data) events.push({ id, line: JSON.parse(data) as Line });
        }
      }
    };
    await read(2);
    t.deepEqual(
      events.map((e) => e.line.leaf_index),
      [lines.length - 2, lines.length - 1],
      'resumed after the last event id',
    );
    const sent = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ path: '/live' }) });
    await read(3);
    t.is(events[2]!.line.id, sent.body.id);
    t.is(events[2]!.id, events[2]!.line.position);
    controller.abort();
  },
);

test('a rebuild of the tree from the log, into a read store of its own, gives the same leaves and roots', async (t) => {
  await settled();
  const live = (await replay()).lines;
  const dir = tempDir();
  const fresh = await openSqliteReadModels(path.join(dir, 'views.db'));
  t.teardown(() => fresh.close());
  await rebuildReadModels(
    { log: server.runtime.log, runners: projectionRunners(fresh).filter((r) => r.name === 'tree'), readModels: fresh },
    () => undefined,
  );
  const head = await fresh.tree.head(projectId);
  t.true((head?.frontier.size ?? 0) >= live.length);
  const leaves = await fresh.tree.leavesFrom(projectId, '0', live.length);
  t.deepEqual(
    leaves.map((l) => l.hash.toString('base64')),
    live.map((l) => l.leaf_hash),
  );
  t.deepEqual(
    foldRoot(leaves.map((l) => ({ leaf_index: l.index, position: l.position, leaf_hash: l.hash.toString('base64') }))),
    foldRoot(live),
  );
});
