import test from 'ava';
import { rmSync } from 'node:fs';
import { ADMIN, api, eventually, login, tempDir } from '../helpers/server.ts';
import { freePort, runCli, waitForLog, type CliProcess } from '../helpers/process.ts';

/** `watchlog admin reset-password` and the bootstrap messages, on real processes at the
 *  production password cost. */

const stop = async (p: CliProcess) => {
  p.child.kill('SIGTERM');
  await p.exited;
};

test.serial('admin --help explains reset-password; a wrong use is exit 2; an unknown e-mail is exit 1', async (t) => {
  const help = runCli(['admin', '--help'], {});
  t.is(await help.exited, 0);
  t.regex(help.stdout(), /watchlog admin reset-password EMAIL/);
  t.regex(help.stdout(), /standard input/);
  const main = runCli(['--help'], {});
  t.is(await main.exited, 0);
  t.regex(main.stdout(), /admin +account administration/);
  const wrong = runCli(['admin', 'reset'], {});
  t.is(await wrong.exited, 2);
  t.regex(wrong.stderr(), /expected `reset-password EMAIL`/);
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const empty = runCli(['admin', 'reset-password', 'ghost@example.com'], { WATCHLOG_DATA_DIR: dataDir });
  t.is(await empty.exited, 1);
  t.regex(empty.stderr(), /no event log in/);
  const short = runCli(
    ['admin', 'reset-password', 'ghost@example.com'],
    { WATCHLOG_DATA_DIR: dataDir },
    { input: 'short\n' },
  );
  t.is(await short.exited, 2);
  t.regex(short.stderr(), /8 to 1024 characters/);
});

test.serial('a fresh data dir without admin variables says how to create the first admin', async (t) => {
  const dataDir = tempDir();
  const server = runCli(['start'], { PORT: String(await freePort()), WATCHLOG_DATA_DIR: dataDir });
  t.teardown(() => {
    server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const hint = await waitForLog(
    server,
    'no user exists yet: to create the first admin, ' +
      'start watchlog once with WATCHLOG_ADMIN_EMAIL and WATCHLOG_ADMIN_PASSWORD set',
    45_000,
  );
  t.is(hint.level, 40);
  await stop(server);
});

test.serial(
  'reset-password with the service stopped: the new password from stdin works; the old admin variables get one warning',
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    };
    const first = runCli(['start'], env);
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    t.teardown(() => first.child.kill('SIGKILL'));
    await waitForLog(first, 'admin user created', 45_000);
    await login(url);
    await stop(first);

    const reset = runCli(
      ['admin', 'reset-password', 'Admin@Example.com'],
      { WATCHLOG_DATA_DIR: dataDir },
      { input: 'a brand new password\n' },
    );
    t.is(await reset.exited, 0, reset.stderr());
    t.regex(reset.stdout(), /password of admin@example\.com \(admin\) reset/);
    t.false(reset.stdout().includes('new password:'), 'a password given is not printed');

    // The same (now stale) variables on the existing data dir: one clear warning, nothing changed.
    const second = runCli(['start'], env);
    t.teardown(() => second.child.kill('SIGKILL'));
    const warning = await waitForLog(
      second,
      "WATCHLOG_ADMIN_PASSWORD differs from this user's password and was ignored: " +
        'it only applies to an empty data dir; to set a password on an existing data dir, ' +
        'run `watchlog admin reset-password EMAIL` (see `watchlog admin --help`)',
      45_000,
    );
    t.is(warning.level, 40);
    t.is(warning.email, ADMIN.email);
    const token = await login(url, ADMIN.email, 'a brand new password');
    t.is((await api(url, 'POST', '/v1/auth/login', { body: ADMIN })).status, 401);
    const users = await api(url, 'GET', '/v1/users', { token });
    t.is(users.status, 200);
    t.false(JSON.stringify(users.body).includes('scrypt'));
    t.is(
      second
        .stdout()
        .split('\n')
        .filter((l) => l.includes('WATCHLOG_ADMIN_PASSWORD differs')).length,
      1,
    );

    // With the service running, a generated password: old tokens are refused once it is projected.
    const generated = runCli(['admin', 'reset-password', ADMIN.email], { WATCHLOG_DATA_DIR: dataDir });
    t.is(await generated.exited, 0, generated.stderr());
    const password = /new password: (\S+)/.exec(generated.stdout())?.[1];
    t.truthy(password);
    t.is(password!.length, 32);
    await eventually(
      async () => ((await api(url, 'GET', '/v1/users', { token })).status === 401 ? true : undefined),
      15_000,
    );
    await login(url, ADMIN.email, password);
    await stop(second);
  },
);
