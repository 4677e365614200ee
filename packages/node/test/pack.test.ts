import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startReceiver } from './helpers/receiver.ts';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The latest modification time of a file, or of the files under a directory. */
const newest = (p: string): number =>
  statSync(p).isDirectory()
    ? Math.max(
        0,
        ...readdirSync(p, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => statSync(path.join(e.parentPath, e.name)).mtimeMs),
      )
    : statSync(p).mtimeMs;

/** What dist/ is built from (@watchlog/masking is bundled from its dist/). */
const BUILD_INPUTS = ['src', 'build.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json', '../masking/dist'];

/** What a user gets from the registry: `npm pack` (which builds through `prepack`), installed
 *  with no registry at all into a project of its own, then imported and used from there. The
 *  build is the one `npm test`'s pretest made unless a file it is made from has changed since. */
test('the packed tarball installs offline into a fresh project, has no dependencies, and works', async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'watchlog-node-pack-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const env = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };

  const own = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  t.is(own.scripts.prepack, 'npm run build', 'npm pack builds dist/ first');
  const bundle = path.join(packageDir, 'dist/index.js');
  const builtAt = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
  if (BUILD_INPUTS.some((input) => newest(path.join(packageDir, input)) > builtAt))
    await run(npm, ['run', 'build'], { cwd: packageDir, env });
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: packageDir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const files = packed!.files.map((f) => f.path).sort();
  t.true(files.includes('dist/index.js'));
  t.true(files.includes('dist/index.d.ts'));
  t.true(files.includes('README.md'));
  t.false(
    files.some((f) => f.startsWith('src/') || f.startsWith('test/')),
    files.join(', '),
  );

  const project = path.join(work, 'app');
  await run('mkdir', ['-p', project]);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
  );
  await run(
    npm,
    ['install', '--offline', '--no-audit', '--no-fund', path.join(work, path.basename(packed!.filename))],
    { cwd: project, env },
  );

  const installed = path.join(project, 'node_modules/@watchlog/node');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  t.is(manifest.dependencies, undefined, 'no runtime dependencies');
  t.is(manifest.peerDependencies, undefined);
  t.deepEqual(readdirSync(path.join(project, 'node_modules')).sort(), ['.package-lock.json', '@watchlog']);
  for (const file of readdirSync(path.join(installed, 'dist'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(path.join(installed, 'dist', file), 'utf8');
    t.false(/from ['"]@watchlog\/masking['"]/.test(text), `${file} must not reference @watchlog/masking`);
    t.false(/from ['"]\.{1,2}\/[^'"]+\.ts['"]/.test(text), `${file} must import .js paths`);
  }
  t.false(
    readFileSync(path.join(installed, 'dist/index.js'), 'utf8').includes('@watchlog/masking'),
    'masking is bundled, not imported',
  );

  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  writeFileSync(
    path.join(project, 'main.js'),
    `
    import http from 'node:http';
    import { createWatchlog, WatchlogConfigError } from '@watchlog/node';
    try { createWatchlog({ endpoint: 'x' }); } catch (e) { if (!(e instanceof WatchlogConfigError)) throw e; }
    const watchlog = createWatchlog({
      endpoint: process.argv[2], apiKey: 'k', serviceName: 'packed', environment: 'development', captureBodies: true,
    });
    const server = http.createServer(watchlog.http((req, res) => { req.body = { password: 'p' }; res.end('ok'); }));
    server.listen(0, '127.0.0.1', async () => {
      await fetch('http://127.0.0.1:' + server.address().port + '/hello?card=4111111111111111');
      server.close();
      console.log(JSON.stringify(await watchlog.close()));
    });
  `,
  );
  const result = await run(process.execPath, ['main.js', receiver.url], { cwd: project });
  t.like(JSON.parse(result.stdout) as object, { sent: 1 });
  t.like(receiver.stored[0], {
    path: '/hello',
    service_name: 'packed',
    query_params: { card: '************1111' },
    request_body: { password: '********' },
  });
});
