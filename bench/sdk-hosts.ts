import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** One application the SDK section measures bare and with its SDK's middleware. */
export interface Host {
  /** As `BENCH_SDK_LANGS` names it (its language's name also selects it). */
  key: 'node' | 'go' | 'flask' | 'fastapi';
  lang: 'node' | 'go' | 'python';
  /** The app and its server, and the SDK, as printed. */
  app: string;
  sdk: string;
  /** The measured route, as requested. */
  route: string;
  /** Throughput with / without the SDK, at least. */
  throughputTarget: number;
  /** Added paced p99 (ms), at most; none where the brief set none. */
  p99Target: number | null;
  /** Paced requests per second to each app: well below the bare app's saturation (a sixth of
   *  it or less here), so that the latency is the request's, not a queue's. */
  rate: number;
  command(
    sdk: boolean,
    port: number,
    receiver: string,
  ): { command: string; args: string[]; env: Record<string, string> };
}

const rateOf = (fallback: number) => Number(process.env.BENCH_SDK_RATE ?? fallback);

const node: Host = {
  key: 'node',
  lang: 'node',
  app: 'Express 5',
  sdk: '@watchlog/node',
  route: '/hello/world',
  throughputTarget: 0.95,
  p99Target: 0.2,
  rate: rateOf(500),
  command: (sdk, port, receiver) => ({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(root, 'bench/sdk-app.ts')],
    env: { PORT: String(port), SDK: sdk ? 'on' : 'off', RECEIVER: receiver },
  }),
};

/** net/http with one P: the Node app is one thread and the Python servers one process, and
 *  autocannon needs the other core to saturate the app rather than itself. */
const goHost = (binary: string): Host => ({
  key: 'go',
  lang: 'go',
  app: 'net/http ServeMux (GOMAXPROCS=1)',
  sdk: 'watchlog Go',
  route: '/orders/42',
  throughputTarget: 0.95,
  p99Target: null,
  rate: rateOf(500),
  command: (sdk, port, receiver) => ({
    command: binary,
    args: [],
    env: { PORT: String(port), SDK: sdk ? 'on' : 'off', RECEIVER: receiver, GOMAXPROCS: '1' },
  }),
});

const python = path.join(root, 'packages/python');
const venvBin = path.join(python, '.venv/bin');
const pythonEnv = (sdk: boolean, receiver: string) => ({
  SDK: sdk ? 'on' : 'off',
  RECEIVER: receiver,
  PYTHONPATH: [path.join(python, 'src'), path.join(root, 'bench/apps/sdk-python')].join(path.delimiter),
});

/** What the two Python hosts share: the SDK, the route, the target and the paced rate (Flask's
 *  bare app saturates near 1,200 requests a second). */
const pythonHost = {
  lang: 'python',
  sdk: 'watchlog Python',
  route: '/orders/42',
  throughputTarget: 0.9,
  p99Target: null,
  rate: rateOf(200),
} as const;

/** One gunicorn worker (one process, as the Node app is one) of gthread, which keeps
 *  connections alive (the sync worker closes each after its response); 4 threads answer. */
const flask: Host = {
  ...pythonHost,
  key: 'flask',
  app: 'Flask 3 (gunicorn gthread, 1 worker, 4 threads)',
  command: (sdk, port, receiver) => ({
    command: path.join(venvBin, 'gunicorn'),
    args: [
      ...['--workers', '1', '--worker-class', 'gthread', '--threads', '4'],
      ...['--bind', `127.0.0.1:${port}`, '--no-control-socket', '--log-level', 'warning'],
      ...['--graceful-timeout', '5', 'flask_app:app'],
    ],
    env: pythonEnv(sdk, receiver),
  }),
};

const fastapi: Host = {
  ...pythonHost,
  key: 'fastapi',
  app: 'FastAPI (uvicorn, uvloop, httptools)',
  command: (sdk, port, receiver) => ({
    command: path.join(venvBin, 'uvicorn'),
    args: [
      ...['--host', '127.0.0.1', '--port', String(port), '--loop', 'uvloop', '--http', 'httptools'],
      ...['--no-access-log', '--log-level', 'warning', 'fastapi_app:app'],
    ],
    env: pythonEnv(sdk, receiver),
  }),
};

export interface Skipped {
  key: string;
  reason: string;
}

export interface Hosts {
  hosts: Host[];
  skipped: Skipped[];
  /** Removes what preparing them made (the Go binary's temp dir). */
  cleanup(): void;
}

const firstLine = (err: unknown) => {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).split('\n').slice(-3).join(' | ');
};

/** The hosts `BENCH_SDK_LANGS` asks for (comma-separated: node, go, python, or flask and fastapi
 *  alone; all by default), made ready: the Go app built into a temp dir, the Python venv made or
 *  brought up to date by packages/python/scripts/venv.sh. One whose toolchain is missing is
 *  skipped, with the reason, rather than failing the section. */
export const prepareHosts = async (): Promise<Hosts> => {
  const asked = (process.env.BENCH_SDK_LANGS ?? 'node,go,python')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const known = ['node', 'go', 'python', 'flask', 'fastapi'];
  const unknown = asked.filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new Error(`BENCH_SDK_LANGS: unknown ${unknown.join(', ')} (known: ${known})`);
  const wants = (key: Host['key'], lang: Host['lang']) => asked.includes(key) || asked.includes(lang);
  const hosts: Host[] = [];
  const skipped: Skipped[] = [];
  let tmp: string | null = null;

  if (wants('node', 'node')) hosts.push(node);
  if (wants('go', 'go')) {
    try {
      await run('go', ['version']);
      tmp = mkdtempSync(path.join(os.tmpdir(), 'watchlog-sdk-go-'));
      const binary = path.join(tmp, 'sdk-go-app');
      process.stderr.write('  building the Go app…\n');
      await run('go', ['build', '-o', binary, '.'], { cwd: path.join(root, 'bench/apps/sdk-go') });
      hosts.push(goHost(binary));
    } catch (err) {
      const missing = (err as { code?: string }).code === 'ENOENT';
      skipped.push({ key: 'go', reason: missing ? 'go is not installed (not on PATH)' : firstLine(err) });
    }
  }
  const pythons = [flask, fastapi].filter((h) => wants(h.key, h.lang));
  if (pythons.length > 0) {
    try {
      process.stderr.write('  making packages/python/.venv if missing or outdated…\n');
      await run('bash', [path.join(python, 'scripts/venv.sh')]);
      hosts.push(...pythons);
    } catch (err) {
      const reason = /: command not found/.test(firstLine(err))
        ? `${process.env.PYTHON ?? 'python3'} is not installed (not on PATH; PYTHON= names another)`
        : `packages/python/scripts/venv.sh failed: ${firstLine(err)}`;
      skipped.push(...pythons.map((h) => ({ key: h.key, reason })));
    }
  }
  return {
    hosts,
    skipped,
    cleanup: () => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
};
