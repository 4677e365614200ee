import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { checkpointSigner, checkpointText } from '../../src/domain/checkpoint.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { openSqliteReadModels, projectionRunners } from '../../src/compose/read-models.ts';
import { rebuildReadModels } from '../../src/compose/rebuild.ts';
import { sqliteTree } from '../../src/views/tree/sqlite.ts';
import { streamLines } from '../../src/views/tree/port.ts';
import { runCli } from '../helpers/process.ts';
import {
  api,
  caughtUp,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  tempDir,
} from '../helpers/server.ts';

/** Tampering with a stopped embedded deployment: each change to `log.db` (or to the tree beside
 *  it) is found by the auditor's offline `watchlog verify` of a stream served from the changed
 *  files against a checkpoint kept from before, and by the server's `watchlog verify --data-dir`. */

interface Original {
  dir: string;
  projectId: string;
  key: string;
  checkpoint: string;
  size: number;
}

let original: Original;

test.before(async () => {
  const dataDir = tempDir();
  const server = await startTestServer({
    dataDir,
    checkpoints: true,
    env: { WATCHLOG_CHECKPOINT_INTERVAL_MS: '200', WATCHLOG_LOG_ORIGIN: 'tamper.test' },
  });
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  // One body says "missing": true, as a stream line for a record gone from the log does: a
  // record is not taken for a gap by what it holds.
  for (let i = 0; i < 20; i += 1)
    await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: sampleEvent({ path: `/orders/${i}`, request_body: i === 3 ? { n: i, missing: true } : { n: i } }),
    });
  // Every leaf in the tree first, so that the checkpoint waited for covers them all.
  await caughtUp(server, ['tree']);
  const latest = await eventually(async () => {
    const size = Number(
      (
        await fetch(`${server.url}/v1/stream?project_id=${projectId}&limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).headers.get('watchlog-tree-size'),
    );
    const res = await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${projectId}`, { token });
    return res.status === 200 && res.body.size === size ? (res.body as { note: string; size: number }) : undefined;
  }, 15_000);
  const key = JSON.stringify((await api(server.url, 'GET', '/v1/checkpoints/key', { token })).body);
  await server.stop({ remove: false });
  original = { dir: dataDir, projectId, key, checkpoint: latest.note, size: latest.size };
});
test.after.always(() => rmSync(original.dir, { recursive: true, force: true }));

/** A copy of the stopped data dir, changed by `tamper` (given the copy's log.db). */
const tampered = (t: ExecutionContext, tamper: (log: Database.Database, views: Database.Database) => void): string => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(original.dir))
    if (!file.endsWith('-wal') && !file.endsWith('-shm'))
      copyFileSync(path.join(original.dir, file), path.join(dir, file));
  const log = new Database(path.join(dir, 'log.db'));
  const views = new Database(path.join(dir, 'views.db'));
  tamper(log, views);
  log.close();
  views.close();
  return dir;
};

/** The project's records as a server on `dir` would serve them, at most the checkpoint's size. */
const servedStream = async (dir: string): Promise<string> => {
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const views = new Database(path.join(dir, 'views.db'), { readonly: true });
  let text = '';
  try {
    for await (const line of streamLines(
      sqliteTree.queries(views),
      (p) => log.readPositions(p),
      original.projectId,
      '0',
      original.size,
    ))
      text += `${line.text}\n`;
  } finally {
    views.close();
    await log.close();
  }
  return text;
};

/** Both checks: the auditor's offline one, then the server's own. */
const check = async (t: ExecutionContext, dir: string, checkpoint = original.checkpoint) => {
  const files = tempDir();
  t.teardown(() => rmSync(files, { recursive: true, force: true }));
  writeFileSync(path.join(files, 'key.json'), original.key);
  writeFileSync(path.join(files, 'checkpoint.txt'), checkpoint);
  writeFileSync(path.join(files, 'stream.ndjson'), await servedStream(dir));
  const offline = runCli(
    [
      'verify',
      '--key',
      path.join(files, 'key.json'),
      '--checkpoint',
      path.join(files, 'checkpoint.txt'),
      '--stream',
      path.join(files, 'stream.ndjson'),
    ],
    {},
  );
  const server = runCli(['verify', '--data-dir', dir], { WATCHLOG_LOG_ORIGIN: 'tamper.test' });
  return {
    offline: { code: await offline.exited, out: offline.stdout(), err: offline.stderr() },
    server: { code: await server.exited, out: server.stdout(), err: server.stderr() },
  };
};

/** Both verifiers find the tampering: exit 1, each saying what it found. */
const detected = async (
  t: ExecutionContext,
  dir: string,
  offlineSays: RegExp,
  serverSays: RegExp,
  checkpoint?: string,
) => {
  const { offline, server } = await check(t, dir, checkpoint);
  t.is(offline.code, 1);
  t.regex(offline.err, offlineSays);
  t.is(server.code, 1);
  t.regex(server.err, serverSays);
};

/** The project's audit events in log.db, in log order. */
const auditRows = (log: Database.Database) =>
  log
    .prepare<[string], { position: number; data: string }>(
      'SELECT position, data FROM events WHERE stream = ? ORDER BY position',
    )
    .all(`audit-${original.projectId}`);

test.serial('a clean data dir verifies, offline and on the server', async (t) => {
  const { offline, server } = await check(
    t,
    tampered(t, () => undefined),
  );
  t.is(offline.code, 0, offline.err);
  t.regex(offline.out, new RegExp(`verified size ${original.size} `));
  t.is(server.code, 0, server.err);
  t.regex(server.out, new RegExp(`project ${original.projectId}: verified ${original.size} leaves`));
});

test.serial('one byte edited in a stored event: the leaf named as edited', async (t) => {
  const dir = tampered(t, (log) => {
    const row = auditRows(log)[7]!;
    log
      .prepare('UPDATE events SET data = ? WHERE position = ?')
      .run(row.data.replace('"/orders/7"', '"/orders/8"'), row.position);
  });
  await detected(t, dir, /FAILED: .*leaf \d+.*edited|edited.*leaf \d+/i, /FAILED \(edited\)/);
});

test.serial('a row deleted: the leaf named as missing', async (t) => {
  const dir = tampered(t, (log) => {
    log.prepare('DELETE FROM events WHERE position = ?').run(auditRows(log)[3]!.position);
  });
  await detected(t, dir, /missing/i, /FAILED \(missing\)/);
});

test.serial('two rows swapped: a record where another was is named as edited', async (t) => {
  const dir = tampered(t, (log) => {
    const [a, b] = [auditRows(log)[2]!, auditRows(log)[12]!];
    log.prepare('UPDATE events SET data = ? WHERE position = ?').run(b.data, a.position);
    log.prepare('UPDATE events SET data = ? WHERE position = ?').run(a.data, b.position);
  });
  await detected(t, dir, /edited/i, /FAILED \(edited\)/);
});

test.serial('the tail cut off, and the tree rebuilt to match: the stream is shorter than the checkpoint', async (t) => {
  const dir = tampered(t, (log) => {
    const rows = auditRows(log);
    log
      .prepare('DELETE FROM events WHERE position >= ? AND stream = ?')
      .run(rows[rows.length - 5]!.position, `audit-${original.projectId}`);
  });
  // Whoever cut the log rebuilds the read models from it, so that they agree with it.
  rmSync(path.join(dir, 'views.db'));
  const models = await openSqliteReadModels(path.join(dir, 'views.db'));
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  await rebuildReadModels({ log, runners: projectionRunners(models), readModels: models }, () => undefined);
  await models.close();
  await log.close();
  await detected(t, dir, /truncated/i, /FAILED \(truncated\)/);
});

test.serial("a record edited and the tree altered to match it: the root no longer is the checkpoint's", async (t) => {
  const dir = tampered(t, (log) => {
    const row = auditRows(log)[5]!;
    log.prepare('UPDATE events SET data = ? WHERE position = ?').run(row.data.replace('"n":5', '"n":55'), row.position);
  });
  // The tree rebuilt from the edited log: every leaf agrees with its record.
  rmSync(path.join(dir, 'views.db'));
  const models = await openSqliteReadModels(path.join(dir, 'views.db'));
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  await rebuildReadModels({ log, runners: projectionRunners(models), readModels: models }, () => undefined);
  await models.close();
  await log.close();
  await detected(t, dir, /altered|root/i, /FAILED \(altered\)/);
});

test.serial('a checkpoint forged with another key: its signature is refused', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const forger = checkpointSigner('tamper.test', seed);
  const forged = forger.sign(
    checkpointText(`tamper.test/projects/${original.projectId}`, original.size, Buffer.alloc(32, 7)),
  );
  const dir = tampered(t, (log) => {
    const last = log
      .prepare<[string], { position: number; data: string }>(
        'SELECT position, data FROM events WHERE stream = ? ORDER BY position DESC LIMIT 1',
      )
      .get(`checkpoints-${original.projectId}`)!;
    log
      .prepare('UPDATE events SET data = ? WHERE position = ?')
      .run(JSON.stringify({ ...(JSON.parse(last.data) as object), note: forged }), last.position);
  });
  await detected(t, dir, /signature|sign/i, /not signed by this deployment's key/, forged);
});
