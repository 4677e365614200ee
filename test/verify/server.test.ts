import test from 'ava';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { parseVerifyArgs, runVerify } from '../../src/verify/cli.ts';
import { readNotes } from '../../src/verify/inputs.ts';
import { parseCheckpoint, parseNote } from '../../src/verify/note.ts';
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

/** The verifier against what a real server hands out (its own tree, sealer and endpoints), with
 *  nothing of the server's code on the verifying side: the answers are saved to files as an
 *  auditor would save them, then checked. */

let server: TestServer;
let token: string;
let projectId: string;
let dir: string;
const witnessFile = () => path.join(dir, 'witness.txt');

test.before(async () => {
  dir = tempDir();
  server = await startTestServer({
    checkpoints: true,
    env: {
      WATCHLOG_CHECKPOINT_INTERVAL_MS: '200',
      WATCHLOG_LOG_ORIGIN: 'verify.example.test',
      WATCHLOG_WITNESS_FILE: witnessFile(),
    },
  });
  token = await login(server.url);
  const created = await projectWithKey(server.url, token);
  projectId = created.projectId;
  // Bodies with keys out of order, nesting, non-ASCII text and fractions, so that canonical JSON
  // has work to do; a monitor and a keyed batch for other record types and streams.
  for (let i = 0; i < 8; i += 1) {
    const sent = await api(server.url, 'POST', '/v1/audit', {
      apiKey: created.apiKey,
      body: sampleEvent({
        path: `/orders/${i}`,
        request_body: { zeta: 'ω — ü', amount: 12.5 + i / 3, alpha: [1, { y: true, x: 'é😀' }], Beta: {} },
      }),
    });
    if (sent.status !== 202) throw new Error(`ingest: ${sent.status} ${JSON.stringify(sent.body)}`);
  }
  await api(server.url, 'POST', '/v1/audit/batch', {
    apiKey: created.apiKey,
    body: [{ ...sampleEvent(), idempotency_key: 'k-1' }, sampleEvent({ path: '/b' })],
  });
  await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/' },
  });
});
test.after.always(async () => {
  await server?.stop();
});

const get = async (url: string) => {
  const res = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.text();
};

const verify = async (args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runVerify(parseVerifyArgs(args), { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
};

/** The key, the latest checkpoint once it covers the whole stream, and the stream, as files. */
const download = async () => {
  const checkpoint = await eventually(async () => {
    const stream = await get(`/v1/stream?project_id=${projectId}`);
    const latest = await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${projectId}`, { token });
    const size = stream.split('\n').filter((l) => l !== '').length;
    return latest.status === 200 && latest.body.size === size
      ? { stream, latest: latest.body as { size: number; note: string } }
      : undefined;
  }, 15_000);
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  return {
    size: checkpoint.latest.size,
    file,
    key: file('key.json', await get('/v1/checkpoints/key')),
    latest: file('latest.json', JSON.stringify(checkpoint.latest)),
    stream: file('records.ndjson', checkpoint.stream),
  };
};

test("the server's stream, key and checkpoints verify, the witness file's notes too", async (t) => {
  const f = await download();
  t.true(f.size >= 12);
  const r = await verify(['--key', f.key, '--checkpoint', f.latest, '--stream', f.stream]);
  t.is(r.code, 0, r.err.join('\n'));
  t.regex(
    r.out[0]!,
    new RegExp(
      `^verified size ${f.size} root \\S+ \\(verify\\.example\\.test/projects/${projectId}, ` +
        'signed by verify\\.example\\.test\\+[0-9a-f]{8}\\)$',
    ),
  );
  // Every checkpoint of this project the witness kept so far (it keeps every project's), against
  // the same stream.
  const witnessed = await verify([
    '--key',
    f.key,
    '--checkpoint',
    f.latest,
    '--checkpoint',
    witnessFile(),
    '--stream',
    f.stream,
  ]);
  t.is(witnessed.code, 0, witnessed.err.join('\n'));
  t.true(witnessed.out.filter((line) => line.startsWith('verified size')).length >= 2, witnessed.out.join('\n'));
});

test("the server's inclusion and consistency proofs verify against its checkpoints", async (t) => {
  const f = await download();
  const lines = (await get(`/v1/stream?project_id=${projectId}`)).split('\n');
  const index = 3;
  const inclusion = f.file(
    'inclusion.json',
    await get(`/v1/proofs/inclusion?project_id=${projectId}&index=${index}&size=${f.size}`),
  );
  const record = f.file('record.json', lines[index]!);
  const included = await verify(['--key', f.key, '--checkpoint', f.latest, '--record', record, '--proof', inclusion]);
  t.is(included.code, 0, included.err.join('\n'));
  t.regex(included.out[0]!, new RegExp(`^verified leaf ${index} \\(id \\S+\\) is in the tree of size ${f.size} `));
  // An older checkpoint the witness kept, and the consistency proof from it to the latest.
  const older = readNotes(witnessFile())
    .map((n) => ({ ...n, ...parseCheckpoint(parseNote(n.message).text) }))
    .find((n) => n.origin.endsWith(projectId) && n.size > 0 && n.size < f.size);
  if (older === undefined) return t.fail('the witness kept no checkpoint older than the latest');
  const olderNote = f.file('older.txt', older.message);
  const consistency = f.file(
    'consistency.json',
    await get(`/v1/proofs/consistency?project_id=${projectId}&from=${older.size}&to=${f.size}`),
  );
  const consistent = await verify([
    '--key',
    f.key,
    '--checkpoint',
    olderNote,
    '--checkpoint',
    f.latest,
    '--proof',
    consistency,
  ]);
  t.is(consistent.code, 0, consistent.err.join('\n'));
  t.regex(consistent.out[0]!, new RegExp(`^verified size ${older.size} root \\S+ is a prefix of size ${f.size} `));
});
