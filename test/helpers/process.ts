import type { ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { ADMIN, tempDir } from './server.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

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

/** Runs the `watchlog` CLI (src/main.ts through tsx) with only the given environment added;
 *  `input` is written to its standard input (otherwise it reads nothing). */
export const runCli = (args: string[], env: Record<string, string>, { input }: { input?: string } = {}): CliProcess => {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
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
