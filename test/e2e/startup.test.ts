import test from 'ava';
import { rmSync } from 'node:fs';
import { tempDir } from '../helpers/server.ts';
import { freePort, runCli } from '../helpers/process.ts';

/** What `watchlog` says before it serves: its help, and the configuration or stores it cannot
 *  start with. */

test('--help prints usage; bad configuration fails fast with a clear message', async (t) => {
  // From the TypeScript through tsx, as in development (and as the tests run it without a build):
  // the whole command loads; the others run the build.
  const help = runCli(['--help'], {}, { source: true });
  t.is(await help.exited, 0);
  t.regex(help.stdout(), /Usage: watchlog <command>/);
  t.regex(help.stdout(), /rebuild/);
  const own = runCli(['worker', '--help'], {});
  t.is(await own.exited, 0);
  t.regex(own.stdout(), /^watchlog worker — [\s\S]*Usage: watchlog worker\n/);

  const bad = runCli(['start'], { PORT: 'abc', WATCHLOG_JWT_SECRET: 'short' });
  t.is(await bad.exited, 2);
  t.regex(bad.stderr(), /PORT: expected integer 0-65535, got "abc"/);
  t.regex(bad.stderr(), /WATCHLOG_JWT_SECRET/);
  t.false(bad.stderr().includes('short'));

  const unknown = runCli(['launch'], {});
  t.is(await unknown.exited, 2);
  t.regex(unknown.stderr(), /unknown command "launch"/);
});

test('an unreachable KurrentDB or MongoDB stops start-up with a clear message', async (t) => {
  const dataDir = tempDir();
  const closed = await freePort();
  const mongo = runCli(['start'], { WATCHLOG_DATA_DIR: dataDir, WATCHLOG_MONGO_URL: `mongodb://127.0.0.1:${closed}` });
  const kurrent = runCli(['start'], {
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_EVENTSTORE_URL: `kurrentdb://127.0.0.1:${closed}?tls=false`,
  });
  t.is(await mongo.exited, 1);
  t.regex(mongo.stderr(), /cannot reach MongoDB \(WATCHLOG_MONGO_URL\)/);
  t.is(await kurrent.exited, 1);
  t.regex(kurrent.stderr(), /cannot reach KurrentDB \(WATCHLOG_EVENTSTORE_URL\)/);
  const bad = runCli(['start'], {
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_MONGO_URL: 'postgres://x',
    WATCHLOG_EVENTSTORE_URL: 'http://x',
  });
  t.is(await bad.exited, 2);
  t.regex(bad.stderr(), /WATCHLOG_MONGO_URL: expected mongodb:\/\/ or mongodb\+srv:\/\/ URL, got \(hidden\)/);
  t.regex(bad.stderr(), /WATCHLOG_EVENTSTORE_URL/);
  rmSync(dataDir, { recursive: true, force: true });
});
