import type { ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, repoPath } from './root.ts';
import { ADMIN, tempDir } from './server.ts';

/** The latest modification time of the TypeScript under `dir`. */
const newestSource = (dir: string): number => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith('.ts'))
      newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  return newest;
};
let sourcesChanged: number | undefined;

/** The arguments that run `file` (a TypeScript file of the repository): its compiled twin under
 *  dist/ when `npm test`'s tsc has emitted it since the last change to src/, projections/ and the
 *  file itself, since a compiled process starts in about half the time; else the file itself
 *  through tsx (a test run on its own after an edit, without a build). */
export const nodeArgs = (file: string): string[] => {
  const relative = path.relative(ROOT, file);
  const built = path.join(ROOT, 'dist', relative.replace(/\.ts$/, '.js'));
  if (existsSync(built)) {
    sourcesChanged ??= Math.max(newestSource(path.join(ROOT, 'src')), newestSource(path.join(ROOT, 'projections')));
    const builtAt = statSync(built).mtimeMs;
    if (builtAt > sourcesChanged && builtAt > statSync(file).mtimeMs) return [built];
  }
  return ['--import', 'tsx', file];
};

export const MAIN = repoPath('src/main.ts');

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs the `watchlog` CLI (dist/src/main.js, or src/main.ts through tsx: see `nodeArgs`; always
 *  the latter with `source`) with only the given environment added; `input` is written to its
 *  standard input (otherwise it reads nothing). */
export const runCli = (
  args: string[],
  env: Record<string, string>,
  { input, source = false }: { input?: string; source?: boolean } = {},
): CliProcess => {
  const entry = source ? ['--import', 'tsx', MAIN] : nodeArgs(MAIN);
  const child = spawn(process.execPath, [...entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
};

/** Resolves when a JSON log line with this `msg` appears on stdout. */
export const waitForLog = async (p: CliProcess, msg: string, timeoutMs = 20_000): Promise<Record<string, unknown>> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of p.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === msg) return entry;
    }
    if (p.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no "${msg}" log line; stdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

export interface ServiceSetup {
  dataDir: string;
  port: number;
  url: string;
  env: Record<string, string>;
}

/** A fresh data dir (removed at teardown), a free port and the environment of a service whose
 *  bootstrap admin is `ADMIN`; `extra` adds or overrides variables. */
export const serviceSetup = async (t: ExecutionContext, extra: Record<string, string> = {}): Promise<ServiceSetup> => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const env = {
    PORT: String(port),
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_ADMIN_EMAIL: ADMIN.email,
    WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    ...extra,
  };
  return { dataDir, port, url: `http://127.0.0.1:${port}`, env };
};

/** `watchlog start` with this environment, killed at teardown (teardowns run last-registered first,
 *  so before the data dir goes); resolves once the bootstrap admin exists. */
export const startService = async (
  t: ExecutionContext,
  env: Record<string, string>,
  timeoutMs = 45_000,
): Promise<CliProcess> => {
  const p = runCli(['start'], env);
  t.teardown(() => p.child.kill('SIGKILL'));
  await waitForLog(p, 'admin user created', timeoutMs);
  return p;
};
