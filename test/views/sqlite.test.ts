import test from 'ava';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { leaseHolderId, type StoreFaults } from '../../src/views/store/port.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';
import { leasesContract } from '../contracts/leases.ts';
import { readModelsContract } from '../contracts/read-models.ts';
import type { OpenedReadModels } from '../contracts/read-models/harness.ts';
import { auditListStatement } from '../../src/views/audit-events/sqlite.ts';
import { sqlitePlan } from '../helpers/query-plans.ts';
import { loginThrottleContract } from '../contracts/login-throttle.ts';
import { sqliteLoginThrottle } from '../../src/views/login-throttle/sqlite.ts';
import { openViewsDatabase } from '../../src/views/store/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const open = async () => {
  const dir = tempDir();
  const file = path.join(dir, 'views.db');
  const readModels = await openSqliteReadModels(file);
  return {
    readModels,
    another: (faults: StoreFaults) => openSqliteReadModels(file, { faults }),
    ageSchema: async (projection: string) => {
      const db = new Database(file);
      db.prepare('UPDATE read_model_versions SET version = version - 1 WHERE projection = ?').run(projection);
      db.close();
    },
    cleanup: async () => {
      await readModels.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** For the read-model contract, a second connection to the file that plans the list queries. */
const openForContract = async (): Promise<OpenedReadModels> => {
  const dir = tempDir();
  const file = path.join(dir, 'views.db');
  const readModels = await openSqliteReadModels(file);
  const planner = new Database(file, { readonly: true });
  return {
    readModels,
    auditListPlan: async (q, scope) => {
      const page = auditListStatement(q, scope);
      if (!page) throw new Error('the scope sees no project: nothing to plan');
      return sqlitePlan(
        planner.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params),
      );
    },
    cleanup: async () => {
      planner.close();
      await readModels.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

readModelsContract('sqlite', openForContract, {
  // The indexes lead with the project, then the time: a list of projects is sorted, and so is a
  // sort by a column whose index ends with the time rather than the position.
  auditShapesSortedInMemory: [
    'the projects of a member, newest first',
    ...['status_code', 'method', 'service_name', 'identifier', 'environment'].flatMap((field) => [
      `a project by ${field}, ascending`,
      `a project by ${field}, descending`,
    ]),
  ],
});
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
  const batch = (position: string) => [
    {
      id: 'e',
      type: 'X',
      stream: 's',
      revision: 0,
      position,
      data: {},
      metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
    },
  ];
  const first = await openSqliteReadModels(file);
  await first.stores.auditEvents.commit(batch('7'), () => undefined);
  await first.close();
  const db = new Database(file);
  db.prepare("UPDATE read_model_versions SET version = version - 1 WHERE projection = 'audit-events'").run();
  db.close();
  const second = await openSqliteReadModels(file);
  t.is(await second.stores.auditEvents.checkpoint(), null, 'the projector will replay it from the start');
  await second.stores.auditEvents.commit(batch('8'), () => undefined);
  await second.close();
  const third = await openSqliteReadModels(file);
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
  const dead = await leases.acquire('p-dead', deadHolder, 600_000);
  const successor = await leases.acquire('p-dead', 'successor', 10_000);
  t.truthy(successor, 'its process exited: no need to wait 10 minutes');
  t.true(successor!.token > dead!.token);
  // A live process (this test's parent), a process of another machine, or an id of another shape
  // keep their leases until they expire.
  for (const [name, holder] of [
    ['p-live', leaseHolderId(hostname(), process.ppid, 1, 'bbbb')],
    ['p-remote', leaseHolderId(`not-${hostname()}`, gone, 1, 'cccc')],
    ['p-other', 'holder-without-a-pid'],
  ] as const) {
    t.truthy(await leases.acquire(name, holder, 600_000));
    t.is(await leases.acquire(name, 'successor', 10_000), null, name);
  }
});
