import autocannon from 'autocannon';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, DURATION, WARMUP, freePort, json, startProcess, verdict, type Child } from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The cost of @watchlog/node to the application that uses it: a hello-world Express 5 app, bare
 *  and with the middleware on, each in a process of its own, both running through the whole
 *  section. The middleware sends to a local receiver answering 202, so watchlog's own CPU is not
 *  in the host's figures.
 *
 *  The machine is shared, and its speed drifts by tens of percent within a minute: one app
 *  measured after the other compares two moments more than two apps. So the measurement is cut
 *  into `BENCH_SDK_SLICES` slices (default 5) that alternate between the two apps, each app
 *  getting the section's usual DURATION in all, at CONNECTIONS, after a WARMUP each; each slice
 *  of one app is compared with the adjacent slice of the other, and the median of those
 *  comparisons is the figure (one disturbed slice does not decide it).
 *
 *  Throughput is autocannon's. Latency is measured apart, paced well below saturation
 *  (`BENCH_SDK_RATE` requests per second, default 500, over 16 connections, the same slices),
 *  with microsecond timing: at saturation a p99 is queueing time (connections over throughput),
 *  and autocannon's histogram counts whole milliseconds, so neither would show what a request
 *  pays for the middleware. */

const SLICES = Number(process.env.BENCH_SDK_SLICES ?? 5);
const RATE = Number(process.env.BENCH_SDK_RATE ?? 500);

export interface Side {
  /** Over all its slices. */
  requestsPerSec: number;
  /** autocannon's p99 over the slices (whole ms; the mean of the slices'). */
  p99: number;
  errors: number;
  /** Paced latency over all its slices, ms. */
  pacedP50: number;
  pacedP99: number;
  /** Per slice: req/s, and the paced p99 (ms). */
  slices: number[];
  pacedP99s: number[];
  /** The app process's CPU time per request under autocannon, µs: what the middleware costs,
   *  read without the other processes' share of the machine. */
  cpuPerRequest: number;
}

export interface SdkReport {
  bare: Side;
  sdk: Side;
  /** req/s with the middleware over req/s without: the median of the slices' ratios. */
  ratio: number;
  /** Paced p99 with the middleware minus without, ms: the median of the slices' differences. */
  addedP99: number;
  /** Events the receiver got, and requests answered 2xx by the app with the middleware. */
  delivered: number;
  answered: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** GETs paced at `rate` per second over keep-alive sockets for `seconds`; latencies in ms. */
const paced = async (url: string, rate: number, seconds: number, into: number[]): Promise<number> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  let ok = 0;
  const one = () => new Promise<void>((resolve) => {
    const started = performance.now();
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) {
          into.push(performance.now() - started);
          ok += 1;
        }
        resolve();
      });
    }).on('error', () => resolve());
  });
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < total; i += 1) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  return ok;
};

interface App {
  child: Child; url: string; requests: number; seconds: number; p99s: number[]; errors: number;
  latencies: number[]; slices: number[]; pacedP99s: number[]; answered: number; cpuMicros: number;
}

const cpuOf = async (app: App): Promise<number> => {
  const { user, system } = await json<{ user: number; system: number }>(app.url.replace('/hello/world', '/__cpu'));
  return user + system;
};

const startApp = async (sdk: boolean, receiver: string): Promise<App> => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hello/world`;
  const child = await startProcess(['--import', 'tsx', path.join(root, 'bench/sdk-app.ts')], { PORT: String(port), SDK: sdk ? 'on' : 'off', RECEIVER: receiver },
    async () => (await fetch(url)).ok);
  return { child, url, requests: 0, seconds: 0, p99s: [], errors: 0, latencies: [], slices: [], pacedP99s: [], answered: 1, cpuMicros: 0 };
};

const side = (app: App): Side => {
  const sorted = [...app.latencies].sort((a, b) => a - b);
  return {
    requestsPerSec: app.requests / app.seconds, p99: mean(app.p99s), errors: app.errors,
    pacedP50: percentile(sorted, 0.5), pacedP99: percentile(sorted, 0.99), slices: app.slices, pacedP99s: app.pacedP99s,
    cpuPerRequest: app.cpuMicros / app.requests,
  };
};

export const sdkBenchmark = async (): Promise<SdkReport> => {
  const receiverPort = await freePort();
  const receiver = `http://127.0.0.1:${receiverPort}`;
  const sink = await startProcess(['--import', 'tsx', path.join(root, 'bench/sdk-receiver.ts')], { PORT: String(receiverPort) },
    async () => (await fetch(`${receiver}/count`)).ok);
  const bare = await startApp(false, receiver);
  const sdk = await startApp(true, receiver);
  try {
    for (const app of [bare, sdk]) {
      if (WARMUP > 0) app.answered += (await autocannon({ url: app.url, connections: CONNECTIONS, duration: WARMUP }))['2xx'];
    }
    const slice = DURATION / SLICES;
    for (let i = 0; i < SLICES; i += 1) {
      // Alternate which goes first, so neither always follows the other.
      for (const app of i % 2 === 0 ? [bare, sdk] : [sdk, bare]) {
        const cpuBefore = await cpuOf(app);
        const r = await autocannon({ url: app.url, connections: CONNECTIONS, duration: slice });
        app.cpuMicros += (await cpuOf(app)) - cpuBefore;
        app.requests += r.requests.total;
        app.seconds += slice;
        app.p99s.push(r.latency.p99);
        app.errors += r.non2xx + r.errors + r.timeouts;
        app.slices.push(r.requests.total / slice);
        app.answered += r['2xx'];
      }
    }
    for (let i = 0; i < SLICES; i += 1) {
      for (const app of i % 2 === 0 ? [bare, sdk] : [sdk, bare]) {
        const latencies: number[] = [];
        app.answered += await paced(app.url, RATE, DURATION / SLICES, latencies);
        app.latencies.push(...latencies);
        app.pacedP99s.push(percentile(latencies.sort((a, b) => a - b), 0.99));
      }
    }
  } finally {
    // SIGTERM closes the SDK, which sends what is still queued.
    await bare.child.stop();
    await sdk.child.stop();
  }
  const { events } = await json<{ events: number }>(`${receiver}/count`);
  await sink.stop();
  const b = side(bare);
  const s = side(sdk);
  return {
    bare: b, sdk: s,
    ratio: median(s.slices.map((v, i) => v / b.slices[i]!)),
    addedP99: median(s.pacedP99s.map((v, i) => v - b.pacedP99s[i]!)),
    delivered: events, answered: sdk.answered,
  };
};

export const printSdk = (r: SdkReport): string[] => {
  const row = (name: string, x: Side) => [
    `${name.padEnd(22)} ${x.requestsPerSec.toFixed(0).padStart(7)} req/s   p99 ${x.p99.toFixed(0)} ms   errors ${x.errors}   | paced p50 ${x.pacedP50.toFixed(3)} ms   p99 ${x.pacedP99.toFixed(3)} ms`,
    `${''.padEnd(22)} slices: ${x.slices.map((v) => v.toFixed(0)).join(' ')} req/s | paced p99 ${x.pacedP99s.map((v) => v.toFixed(2)).join(' ')} ms | app CPU ${x.cpuPerRequest.toFixed(1)} µs/request`,
  ];
  return [
    `sdk: hello-world Express 5 with and without @watchlog/node; autocannon ${DURATION} s each at ${CONNECTIONS} connections in ${SLICES} alternating slices | paced ${RATE} req/s`,
    ...row('bare Express', r.bare),
    ...row('with @watchlog/node', r.sdk),
    `throughput with / without (median of the slices): ${(r.ratio * 100).toFixed(1)}%   ${verdict(r.ratio >= 0.95)} (target >= 95%)`,
    `added p99, paced (median of the slices): ${r.addedP99.toFixed(3)} ms   ${verdict(r.addedP99 < 0.2)} (target < 0.2 ms)`,
    `app CPU per request: +${(r.sdk.cpuPerRequest - r.bare.cpuPerRequest).toFixed(1)} µs (${((r.sdk.cpuPerRequest / r.bare.cpuPerRequest - 1) * 100).toFixed(1)}%)`,
    // Requests cut off at the end of an autocannon slice were handled, and recorded, too.
    `events delivered to the receiver: ${r.delivered} (${r.answered} requests answered 2xx by the app with the middleware)`,
  ];
};
