import test from 'ava';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { leaseHolderId } from '../../src/views/store/port.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';
import { leasesContract } from '../contracts/leases.ts';
import { readModelsContract } from '../contracts/read-models.ts';
import { loginThrottleContract } from '../contracts/login-throttle.ts';
import { sqliteLoginThrottle } from '../../src/views/login-throttle/sqlite.ts';
import { openViewsDatabase } from '../../src/views/store/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const open = async () => {
  const dir = tempDir();
  const readModels = openSqliteReadModels(path.join(dir, 'views.db'));
  return {
    readModels,
    cleanup: async () => {
      await readModels.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

readModelsContract('sqlite', open);
leasesContract('sqlite', open);
loginThrottleContract('sqlite', async (limits) => {
  const dir = tempDir();
  const db = openViewsDatabase(path.join(dir, 'views.db'));
  const throttle = sqliteLoginThrottle(db, limits);
  return {
    throttle,
    cleanup: async () => {
      await throttle.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

test('a read model built by another schema version is dropped and replayed', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'views.db');
  const batch = (position: string) => [{
    id: 'e', type: 'X', stream: 's', revision: 0, position, data: {},
    metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
  }];
  const first = openSqliteReadModels(file);
  await first.stores.auditEvents.commit(batch('7'), () => undefined);
  await first.close();
  const db = new Database(file);
  db.prepare("UPDATE read_model_versions SET version = version - 1 WHERE projection = 'audit-events'").run();
  db.close();
  const second = openSqliteReadModels(file);
  t.is(await second.stores.auditEvents.checkpoint(), null, 'the projector will replay it from the start');
  await second.stores.auditEvents.commit(batch('8'), () => undefined);
  await second.close();
  const third = openSqliteReadModels(file);
  t.is(await third.stores.auditEvents.checkpoint(), '8', 'the same version keeps what it built');
  await third.close();
  rmSync(dir, { recursive: true, force: true });
});

test('sqlite leases: the lease of a holder whose process is gone is taken over before it expires', async (t) => {
  const { readModels, cleanup } = await open();
  t.teardown(cleanup);
  const { leases } = readModels;
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  const deadHolder = leaseHolderId(hostname(), gone, 1, 'aaaa');
  t.true(await leases.acquire('p-dead', deadHolder, 600_000));
  t.true(await leases.acquire('p-dead', 'successor', 10_000), 'its process exited: no need to wait 10 minutes');
  // A live process (this test's parent), a process of another machine, or an id of another shape
  // keep their leases until they expire.
  for (const [name, holder] of [
    ['p-live', leaseHolderId(hostname(), process.ppid, 1, 'bbbb')],
    ['p-remote', leaseHolderId(`not-${hostname()}`, gone, 1, 'cccc')],
    ['p-other', 'holder-without-a-pid'],
  ] as const) {
    t.true(await leases.acquire(name, holder, 600_000));
    t.false(await leases.acquire(name, 'successor', 10_000), name);
  }
});
