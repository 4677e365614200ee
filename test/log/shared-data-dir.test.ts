import test from 'ava';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { nodeArgs } from '../helpers/process.ts';
import { tempDir } from '../helpers/server.ts';
import { repoPath } from '../helpers/root.ts';

const SCRIPT = repoPath('test/helpers/share-data-dir.ts');
const PROCESSES = 6;
const ROUNDS = 30;

const run = (dataDir: string) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs(SCRIPT), dataDir, String(ROUNDS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });

// api and worker processes open one data dir together; none may fail with "database is locked".
test('processes opening one fresh data dir at once all migrate, append and take leases', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const results = await Promise.all(Array.from({ length: PROCESSES }, () => run(dataDir)));
  for (const r of results) t.is(r.code, 0, r.out);
  const db = new Database(path.join(dataDir, 'events.db'), { readonly: true });
  const revisions = db
    .prepare<[], { revision: number }>("SELECT revision FROM events WHERE stream = 'shared-stream' ORDER BY revision")
    .all();
  db.close();
  t.deepEqual(
    revisions.map((r) => r.revision),
    Array.from({ length: PROCESSES * ROUNDS }, (_, i) => i),
  );
});
