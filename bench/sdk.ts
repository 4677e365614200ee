import autocannon from 'autocannon';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { prepareHosts, type Host, type Skipped } from './sdk-hosts.ts';
import {
  CONNECTIONS,
  DURATION,
  WARMUP,
  alternatingSlices,
  freePort,
  json,
  median,
  startProcess,
  type Child,
} from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The cost of watchlog's SDKs to the applications that use them: for each host of
 *  bench/sdk-hosts.ts (a hello-world Express 5 app with @watchlog/node, a net/http ServeMux app
 *  with the Go SDK, Flask under gunicorn and FastAPI under uvicorn with the Python SDK), the app
 *  bare and with the SDK's middleware on, each in a process of its own, driven by the same load
 *  generator. The middleware sends to a local receiver that answers 202 as cheaply as it can
 *  (bench/sdk-receiver.ts; a fresh one per host), so watchlog's own CPU is not in the host's
 *  figures; but every event is really delivered, and the section checks it. Each host is
 *  measured whole, one after the other, with the method below.
 *
 *  This machine is shared: its speed drifts by tens of percent within a minute, and two
 *  processes of the very same app differ by up to ~10 % in throughput for as long as they live
 *  (their inline caches, which Express's per-request prototypes make megamorphic, hash by
 *  address). So one app measured after the other compares two moments, and one pair of processes
 *  compares two processes, more than with and without the middleware. Hence:
 *
 *  - Pairs: `BENCH_SDK_PAIRS` (default 4) pairs of fresh processes, one bare and one with the
 *    middleware, one pair after the other, each after a WARMUP per app.
 *  - Throughput: in each pair, `BENCH_SDK_SLICES` rounds (default 4) of autocannon at
 *    CONNECTIONS, each app in turn, the order flipped every round (support.ts's
 *    alternatingSlices); each app gets the section's usual DURATION in all. Each round's ratio
 *    compares two adjacent slices; the figure is the median of all rounds' ratios, printed with
 *    each pair's own ratio.
 *  - Latency: at saturation a p99 is queueing time (connections over throughput), and
 *    autocannon's histogram counts whole milliseconds, so neither says what a request pays for
 *    the middleware. It is measured apart, paced well below saturation (the host's rate a
 *    second to each app: 500 for Express, whose bare app saturates near 4,500 here, and Go;
 *    200 for the Python apps, as Flask's saturates near 1,200; `BENCH_SDK_RATE` sets all;
 *    over 16 keep-alive connections each), with microsecond timing, in as many rounds per pair,
 *    each as long as a slice. Within a round both apps of the pair are driven at once, their
 *    requests interleaved (the round's first request alternating between them): a pause of the
 *    machine, which here lasts tens of milliseconds and decides a p99, then delays both alike
 *    instead of whichever app was being measured. The figure is the p99 of all of an app's
 *    requests, with minus without.
 *  - Delivery: at the end of each pair the app with the middleware flushes; the receiver's
 *    count of events (and of distinct idempotency keys) must equal the requests those apps
 *    answered, with nothing dropped, refused or failed. */

const PAIRS = Number(process.env.BENCH_SDK_PAIRS ?? 4);
const SLICES = Number(process.env.BENCH_SDK_SLICES ?? 4);

export interface Side {
  /** Over all its slices. */
  requestsPerSec: number;
  /** autocannon's p99 over the slices (whole ms; the mean of the slices'). */
  p99: number;
  errors: number;
  /** Paced latency over all its rounds, ms. */
  pacedP50: number;
  pacedP99: number;
  pacedP999: number;
  /** Per slice: req/s, and the paced p99 of each round (ms). */
  slices: number[];
  pacedP99s: number[];
  /** The app process's CPU time per request under autocannon, µs: what the middleware costs,
   *  read without the other processes' share of the machine. */
  cpuPerRequest: number;
}

export interface Delivery {
  /** Requests the app with the middleware answered on its measured route (each one event). */
  handled: number;
  /** Events the receiver got, and their distinct idempotency keys. */
  received: number;
  distinctKeys: number;
  batches: number;
  /** The SDK's own counters after its flush. */
  stats: Record<string, number> | null;
  flushed: boolean;
  ok: boolean;
}

export interface SdkReport {
  bare: Side;
  sdk: Side;
  /** req/s with the middleware over req/s without: the median of the rounds' ratios (all
   *  pairs). */
  ratio: number;
  ratios: number[];
  /** Each pair's ratio over its own rounds. */
  pairRatios: number[];
  /** Paced p99 with the middleware minus without, ms: all requests of each app. */
  addedP99: number;
  /** The median of the rounds' differences, ms. */
  addedP99Rounds: number;
  /** Paced p50 with minus without, ms. */
  addedP50: number;
  delivery: Delivery;
  /** `uptime`'s load averages (1, 5, 15 min) at the start and at the end. */
  load: { start: number[]; end: number[] };
}

export interface HostReport extends SdkReport {
  host: Omit<Host, 'command'>;
}

export interface SdkSection {
  hosts: HostReport[];
  /** Hosts asked for but left out (a toolchain missing), with why. */
  skipped: Skipped[];
  load: { start: number[]; end: number[] };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const byValue = (a: number, b: number) => a - b;

const loadAverage = async (): Promise<number[]> =>
  (await import('node:os')).loadavg().map((v) => Math.round(v * 100) / 100);

interface App {
  child: Child;
  base: string;
  url: string;
  agent: http.Agent;
  requests: number;
  seconds: number;
  p99s: number[];
  errors: number;
  cpuMicros: number;
  latencies: number[];
  slices: number[];
  pacedP99s: number[];
}

/** One GET over the app's own keep-alive agent; its latency in ms, or null when it failed. */
const timedGet = (app: App) =>
  new Promise<number | null>((resolve) => {
    const started = performance.now();
    http
      .get(app.url, { agent: app.agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : null));
      })
      .on('error', () => resolve(null));
  });

/** `rate` GETs per second to each of `apps` for `seconds`, interleaved (`first` goes first);
 *  each app's latencies (ms) appended to `into`. */
const pacedRound = async (
  apps: App[],
  first: number,
  rate: number,
  seconds: number,
  into: number[][],
): Promise<void> => {
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < total; i += 1) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    for (let k = 0; k < apps.length; k += 1) {
      const target = (first + k) % apps.length;
      pending.push(
        timedGet(apps[target]!).then((ms) => {
          if (ms === null) apps[target]!.errors += 1;
          else into[target]!.push(ms);
        }),
      );
    }
  }
  await Promise.all(pending);
};

const cpuOf = async (app: App): Promise<number> => {
  const { user, system } = await json<{ user: number; system: number }>(`${app.base}/__cpu`);
  return user + system;
};

const startApp = async (host: Host, sdk: boolean, receiver: string): Promise<App> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}${host.route}`;
  const { command, args, env } = host.command(sdk, port, receiver);
  const child = await startProcess(args, env, async () => (await fetch(`${base}/__cpu`)).ok, command);
  return {
    child,
    base,
    url,
    agent: new http.Agent({ keepAlive: true, maxSockets: 16 }),
    requests: 0,
    seconds: 0,
    p99s: [],
    errors: 0,
    cpuMicros: 0,
    latencies: [],
    slices: [],
    pacedP99s: [],
  };
};

const side = (app: App): Side => {
  const sorted = [...app.latencies].sort(byValue);
  return {
    requestsPerSec: app.requests / app.seconds,
    p99: mean(app.p99s),
    errors: app.errors,
    pacedP50: percentile(sorted, 0.5),
    pacedP99: percentile(sorted, 0.99),
    pacedP999: percentile(sorted, 0.999),
    slices: app.slices,
    pacedP99s: app.pacedP99s,
    cpuPerRequest: app.cpuMicros / app.requests,
  };
};

interface Flushed {
  flushed: boolean;
  handled: number;
  stats: Record<string, number> | null;
}

/** One pair of fresh processes, bare and with the middleware, measured against each other. */
const measurePair = async (host: Host, receiver: string, slices: number, apps: App[]): Promise<Flushed> => {
  const pair = [await startApp(host, false, receiver), await startApp(host, true, receiver)];
  try {
    for (const app of pair) {
      if (WARMUP > 0) await autocannon({ url: app.url, connections: CONNECTIONS, duration: WARMUP });
    }
    const slice = DURATION / (PAIRS * slices);
    await alternatingSlices(pair.length, slices, async (target) => {
      const app = pair[target]!;
      const cpuBefore = await cpuOf(app);
      // autocannon stops at its first sampling tick after the duration (1 s apart by default, so
      // a 0.625 s slice would last 1 s): ticks 100 ms apart, and its own measure of the time.
      const r = await autocannon({ url: app.url, connections: CONNECTIONS, duration: slice, sampleInt: 100 });
      app.cpuMicros += (await cpuOf(app)) - cpuBefore;
      app.requests += r.requests.total;
      app.seconds += r.duration;
      app.p99s.push(r.latency.p99);
      app.errors += r.non2xx + r.errors + r.timeouts;
      app.slices.push(r.requests.total / r.duration);
    });
    for (let round = 0; round < slices; round += 1) {
      const into = pair.map(() => [] as number[]);
      await pacedRound(pair, round % pair.length, host.rate, slice, into);
      pair.forEach((app, i) => {
        app.latencies.push(...into[i]!);
        app.pacedP99s.push(percentile(into[i]!.sort(byValue), 0.99));
      });
    }
    // Every request the app answered is an event: all of them must reach the receiver, once.
    return await json<Flushed>(`${pair[1]!.base}/__flush`);
  } finally {
    // SIGTERM closes the SDK (nothing is left to send after the flush above).
    for (const app of pair) {
      app.agent.destroy();
      await app.child.stop();
    }
    apps.push(...pair);
  }
};

/** The sum of two apps' figures (the same side in two pairs). */
const merge = (apps: App[]): App => {
  const sum = (of: (app: App) => number) => apps.reduce((n, app) => n + of(app), 0);
  return {
    ...apps[0]!,
    requests: sum((a) => a.requests),
    seconds: sum((a) => a.seconds),
    p99s: apps.flatMap((a) => a.p99s),
    errors: sum((a) => a.errors),
    cpuMicros: sum((a) => a.cpuMicros),
    latencies: apps.flatMap((a) => a.latencies),
    slices: apps.flatMap((a) => a.slices),
    pacedP99s: apps.flatMap((a) => a.pacedP99s),
  };
};

const measureHost = async (host: Host): Promise<SdkReport> => {
  const loadStart = await loadAverage();
  const receiverPort = await freePort();
  const receiver = `http://127.0.0.1:${receiverPort}`;
  const sink = await startProcess(
    ['--import', 'tsx', path.join(root, 'bench/sdk-receiver.ts')],
    { PORT: String(receiverPort) },
    async () => (await fetch(`${receiver}/count`)).ok,
  );
  const apps: App[] = [];
  const flushes: Flushed[] = [];
  let count: { events: number; batches: number; keys: number };
  try {
    for (let pair = 0; pair < PAIRS; pair += 1) flushes.push(await measurePair(host, receiver, SLICES, apps));
    count = await json<{ events: number; batches: number; keys: number }>(`${receiver}/count?keys`);
  } finally {
    await sink.stop();
  }
  const bares = apps.filter((_, i) => i % 2 === 0);
  const sdks = apps.filter((_, i) => i % 2 === 1);
  const [b, s] = [side(merge(bares)), side(merge(sdks))];
  const ratios = s.slices.map((v, i) => v / b.slices[i]!);
  const pairRatios = sdks.map((app, i) => app.requests / app.seconds / (bares[i]!.requests / bares[i]!.seconds));
  const total = (key: string) => flushes.reduce((n, f) => n + (f.stats?.[key] ?? NaN), 0);
  const handled = flushes.reduce((n, f) => n + f.handled, 0);
  const stats = Object.fromEntries(
    ['queued', 'sent', 'replayed', 'rejected', 'dropped', 'failures', 'retries', 'pending'].map((k) => [k, total(k)]),
  );
  const delivery: Delivery = {
    handled,
    received: count.events,
    distinctKeys: count.keys,
    batches: count.batches,
    stats,
    flushed: flushes.every((f) => f.flushed),
    ok:
      flushes.every((f) => f.flushed && f.stats !== null) &&
      count.events === handled &&
      count.keys === count.events &&
      stats.queued === handled &&
      stats.sent === handled &&
      stats.dropped === 0 &&
      stats.failures === 0 &&
      stats.rejected === 0 &&
      stats.pending === 0,
  };
  return {
    bare: b,
    sdk: s,
    ratio: median(ratios),
    ratios,
    pairRatios,
    addedP99: s.pacedP99 - b.pacedP99,
    addedP99Rounds: median(s.pacedP99s.map((v, i) => v - b.pacedP99s[i]!)),
    addedP50: s.pacedP50 - b.pacedP50,
    delivery,
    load: { start: loadStart, end: await loadAverage() },
  };
};

export const sdkBenchmark = async (): Promise<SdkSection> => {
  const start = await loadAverage();
  const { hosts, skipped, cleanup } = await prepareHosts();
  const reports: HostReport[] = [];
  try {
    for (const host of hosts) {
      process.stderr.write(`  ${host.key}: ${host.app} with and without ${host.sdk}…\n`);
      const { command: _, ...described } = host;
      reports.push({ host: described, ...(await measureHost(host)) });
    }
  } finally {
    cleanup();
  }
  return { hosts: reports, skipped, load: { start, end: await loadAverage() } };
};
