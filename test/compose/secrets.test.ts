import test from 'ava';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/server.ts';

/** Threads racing to create the same 500 secrets, one after another: with an exclusive create
 *  followed by a write, the loser regularly read an empty file. */
test('racers agree on one secret each, none reads one half-written, and no staging file stays', async (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const source = `const { workerData, parentPort } = require('node:worker_threads');
    import('tsx/esm/api')
      .then(({ register }) => { register(); return import(workerData.module); })
      .then(({ loadOrCreateSecret }) => {
        const out = [];
        for (let i = 0; i < 500; i++) {
          try { out.push(loadOrCreateSecret(workerData.dir, 's-' + i)); } catch (e) { out.push('error: ' + e.message); }
        }
        parentPort.postMessage(out);
      });`;
  const racers = Array.from({ length: 3 }, () => {
    const worker = new Worker(source, {
      eval: true,
      workerData: { dir, module: pathToFileURL(path.resolve('src/compose/secrets.ts')).href },
    });
    return once(worker, 'message').then(([out]) => out as string[]);
  });
  const [a, b, c] = await Promise.all(racers);
  t.deepEqual(
    a!.filter((s) => s.startsWith('error')),
    [],
  );
  t.deepEqual(b, a);
  t.deepEqual(c, a);
  t.true(a!.every((s) => s.length >= 32));
  t.is(readdirSync(dir).length, 500);
});
