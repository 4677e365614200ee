/* One of several processes opening the same fresh data dir at once, as `watchlog worker` and
 * `watchlog api` do: it opens the log and the read models, then appends and takes leases.
 * Prints `ok <appended>` and exits 0, or exits 1 with the error. */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { openLogDatabase, SqliteLogWriter } from '../../src/log/sqlite/writer.ts';
import { openSqliteReadModels } from '../../src/compose/read-models.ts';

const [dataDir = '', rounds = '20'] = process.argv.slice(2);
try {
  const log = openLogDatabase(path.join(dataDir, 'events.db'));
  const views = await openSqliteReadModels(path.join(dataDir, 'views.db'));
  const writer = new SqliteLogWriter(log);
  let appended = 0;
  for (let i = 0; i < Number(rounds); i++) {
    const [outcome] = writer.commit([
      {
        stream: 'shared-stream',
        expected: 'any',
        events: [{ id: randomUUID(), type: 'Probe', data: '{}', metadata: '{}' }],
      },
    ]);
    if (!outcome?.ok) throw new Error(`append failed: ${JSON.stringify(outcome)}`);
    appended += 1;
    await views.leases.acquire('probe', `pid-${process.pid}`, 1);
  }
  await views.close();
  log.close();
  process.stdout.write(`ok ${appended}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
}
