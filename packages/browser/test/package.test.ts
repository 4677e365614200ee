import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

// These build dist/ (unless it is newer than what it is built from) and pack it: one at a time,
// in this order.

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
export const MAX_GZIP_BYTES = 5000;

/** npm as a person runs it: without the npm_* settings of the `npm test` this runs under (its
 *  workspace flags would make `npm pack` pack every workspace). */
const npm = (args: string[], cwd: string) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
};

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

/** `npm run build`, unless dist/ is newer than every file it is built from: `npm test`'s pretest
 *  has just built it. */
const build = async () => {
  const bundle = path.join(PACKAGE, 'dist', 'index.js');
  const builtAt = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
  const inputs = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
  if (inputs.some((input) => newest(path.join(PACKAGE, input)) > builtAt)) await npm(['run', 'build'], PACKAGE);
};

const temp = (t: { teardown(fn: () => void): void }, prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test.serial(
  `the build is one ESM file of at most ${MAX_GZIP_BYTES} bytes gzipped, with types, and no imports`,
  async (t) => {
    await build();
    const js = readFileSync(path.join(PACKAGE, 'dist', 'index.js'));
    const gzipped = gzipSync(js).length;
    t.log(`dist/index.js: ${js.length} bytes, ${gzipped} bytes gzipped`);
    console.log(`@watchlog/browser dist/index.js: ${js.length} bytes, ${gzipped} bytes gzipped (zlib default level)`);
    t.true(gzipped <= MAX_GZIP_BYTES, `${gzipped} bytes gzipped`);
    const code = js.toString();
    t.regex(code, /export\s*\{[^}]*\binit\b/);
    t.notRegex(code, /\bimport\s*[\w{*(]|\brequire\(/, 'everything is bundled: no runtime dependency');
    t.regex(
      readFileSync(path.join(PACKAGE, 'dist', 'index.d.ts'), 'utf8'),
      /export declare const init: \(options: WatchlogOptions\) => WatchlogBrowser/,
    );
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    t.is(manifest.dependencies, undefined);
    t.is(manifest.peerDependencies, undefined);
  },
);

test.serial(
  'npm pack makes a tarball that installs offline, imports in Node without a window, and type-checks',
  async (t) => {
    const packed = temp(t, 'watchlog-browser-pack-');
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    t.is(manifest.scripts.prepack, 'npm run build', 'npm pack builds dist/ first');
    // The previous test built it.
    const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', packed], PACKAGE);
    const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = info!.files.map((f) => f.path).sort();
    t.deepEqual(files, ['README.md', ...files.filter((f) => f.startsWith('dist/')), 'package.json'].sort());
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/options.d.ts']) t.true(files.includes(f), f);
    t.false(files.some((f) => f.startsWith('src/') || f.startsWith('test/')));

    const project = temp(t, 'watchlog-browser-consumer-');
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    await npm(['install', '--offline', '--no-audit', '--no-fund', path.join(packed, info!.filename)], project);

    // Any touch of a browser global while importing throws.
    const script = `
    const names = [
      'window', 'document', 'navigator', 'location', 'sessionStorage', 'XMLHttpRequest', 'addEventListener',
    ];
    const kept = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    for (const name of names) {
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get() { throw new Error('touched ' + name + ' at import'); },
      });
    }
    const m = await import('@watchlog/browser');
    names.forEach((name, i) => {
      delete globalThis[name];
      if (kept[i]) Object.defineProperty(globalThis, name, kept[i]);
    });
    let refused = '';
    try {
      m.init({
        endpoint: 'https://w.example.com', apiKey: '', serviceName: 'web', environment: 'production',
        backends: ['https://api.example.com'],
      });
    } catch (e) { refused = e.message; }
    console.log(JSON.stringify({ exports: Object.keys(m).sort(), stats: m.stats() ?? null, refused }));
  `;
    const out = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    t.deepEqual(JSON.parse(out.stdout), {
      exports: ['flush', 'init', 'stats', 'stop'],
      stats: null,
      refused: '@watchlog/browser: invalid options: apiKey must be a string of 1 to 1000 characters',
    });

    // A TypeScript consumer gets the types (strict, NodeNext, no skipLibCheck).
    writeFileSync(
      path.join(project, 'app.ts'),
      `
    import { init, type Stats, type WatchlogOptions } from '@watchlog/browser';
    const options: WatchlogOptions = {
      endpoint: 'https://w.example.com', apiKey: 'k', serviceName: 'web', environment: 'production',
      backends: ['/api'], identify: () => null,
    };
    const sdk = init(options);
    const counts: Stats = sdk.stats();
    export const sent: number = counts.sent;
    export const done: Promise<void> = sdk.stop();
  `,
    );
    writeFileSync(
      path.join(project, 'bad.ts'),
      `
    import { init } from '@watchlog/browser';
    init({ endpoint: 'https://w.example.com', apiKey: 'k', serviceName: 'web', environment: 'prod', backends: [] });
  `,
    );
    const tsc = (file: string) =>
      settledRun(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--lib',
          'es2022,dom',
          file,
        ],
        project,
      );
    t.is((await tsc('app.ts')).code, 0);
    const bad = await tsc('bad.ts');
    t.not(bad.code, 0);
    t.regex(bad.stdout, /"prod"/, 'an environment outside SPEC is a type error');
  },
);

const settledRun = async (cmd: string, args: string[], cwd: string) => {
  try {
    const { stdout } = await run(cmd, args, { cwd });
    return { code: 0, stdout };
  } catch (e) {
    const failure = e as { code?: number; stdout?: string };
    return { code: failure.code ?? 1, stdout: failure.stdout ?? '' };
  }
};
