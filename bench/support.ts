import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
export { freePort } from '../test/helpers/process.ts';

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);

export interface Child { process: ChildProcess; stop(): Promise<void> }

/** Starts a Node process and resolves once `ready` answers true (polled). */
export const startProcess = async (args: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<Child> => {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 30_000;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
};

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** 2xx answers during the unmeasured warm-up. */
  warmupOk: number;
}

/** autocannon for `duration` seconds after an unmeasured warm-up of WARMUP seconds. */
export const load = async (options: autocannon.Options, duration = DURATION): Promise<LoadResult> => {
  const warmup = WARMUP > 0 ? await autocannon({ connections: CONNECTIONS, ...options, duration: WARMUP }) : null;
  const r = await autocannon({ connections: CONNECTIONS, ...options, duration });
  return {
    requestsPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    warmupOk: warmup ? warmup['2xx'] : 0,
  };
};

export const json = async <T>(url: string, init: RequestInit = {}): Promise<T> => {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

/** Logs in as soon as the server has created its admin (just after it starts listening). */
export const loginWhenReady = async (base: string, credentials: { email: string; password: string }): Promise<string> => {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const res = await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
    if (res.ok) return ((await res.json()) as { token: string }).token;
    if (Date.now() > deadline) throw new Error(`login failed: ${res.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

export const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
