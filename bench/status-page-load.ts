import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, WARMUP } from './support.ts';

/** The status page section's loads: as fast as the server answers (autocannon), or at a set
 *  pace (below), with each server's CPU time per answer. */

/** autocannon keeps every answer's body as a string (`body += chunk`, for its `expectBody`):
 *  decoding 11 KB of gzip an answer cost the load generator more CPU than the servers' whole
 *  answers (5,100 against 13,300 req/s from the baseline alone, on two cores). No measure here
 *  reads a body, so while this section loads, its bodies are dropped. */
const autocannonQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
export const bodiesDropped = async <T>(work: () => Promise<T>): Promise<T> => {
  const { addBody } = autocannonQueue.prototype;
  autocannonQueue.prototype.addBody = () => undefined;
  try {
    return await work();
  } finally {
    autocannonQueue.prototype.addBody = addBody;
  }
};

/** A process's CPU time (user + system, all its threads), ms. */
export const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The CPU the machine's other processes (other than `ours`) use from now until `stop`, as a
 *  share of one core: this machine is shared, and a figure taken while others were busy says so. */
export const othersCpu = (ours: readonly number[]): { stop(): number } => {
  const busy = () => {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .split(/\s+/)
      .map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
  };
  const mine = () => ours.reduce((n, pid) => n + cpuMs(pid), 0);
  const started = performance.now();
  const total = busy();
  const own = mine();
  return { stop: () => (busy() - total - (mine() - own)) / (performance.now() - started) };
};

export interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is left as sent (fetch would inflate it). */
export const rawGet = (url: string, headers: Record<string, string> = {}): Promise<Raw> =>
  new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });

export interface Saturated {
  requestsPerSec: number;
  p50: number;
  p99: number;
  answers: number;
  /** Answers of another status than expected (a 200 where 304 was due, or the reverse). */
  unexpected: number;
  errors: number;
  /** The server's CPU time per answer, µs (all its threads, its background included). */
  cpuPerAnswerUs: number;
}

/** autocannon at CONNECTIONS for `seconds`, after an unmeasured warm-up of WARMUP seconds. */
export const saturate = async (
  url: string,
  headers: Record<string, string>,
  expect: 200 | 304,
  seconds: number,
  pid: number,
): Promise<Saturated> => {
  if (WARMUP > 0) await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP });
  const cpu = cpuMs(pid);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  const answers = r['2xx'] + r.non2xx;
  return {
    requestsPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    answers,
    unexpected: expect === 200 ? r.non2xx : r['2xx'] + r['4xx'] + r['5xx'],
    errors: r.errors + r.timeouts,
    cpuPerAnswerUs: ((cpuMs(pid) - cpu) * 1000) / Math.max(1, answers),
  };
};

export interface Paced {
  rate: number;
  /** Answers per second over the run. */
  achieved: number;
  /** From each request's scheduled time (not when the client got to send it, if later) to the end
   *  of its answer, ms: a client or server falling behind shows, as the readers would see it. */
  p50: number;
  p99: number;
  p999: number;
  max: number;
  unexpected: number;
  errors: number;
  /** The windows of WINDOW_MS in which a request due took over SLOW_MS; runs of adjacent ones,
   *  and the median time between the starts of runs, s: stalls that come back on a period. */
  slow: { windows: number; runs: number; everyS: number | null };
}

const WINDOW_MS = 100;
const SLOW_MS = 20;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

interface Connection {
  socket: net.Socket;
  /** The scheduled time of the request in flight; null: idle. */
  due: number | null;
  /** An answer's head read so far. */
  head: Buffer | null;
  /** Body bytes still to come. */
  left: number;
  status: number;
}

/** `rate` GETs a second, open loop (each at its time, whether or not earlier ones were answered),
 *  over CONNECTIONS keep-alive connections (a request waits for one that is free), for `seconds`
 *  after `warmupSeconds` unmeasured, or until `stop` says so. Node's HTTP client cost more CPU a
 *  request than the servers measured (it kept 4,100 of 5,000 a second to the baseline): this one
 *  writes a request made once and reads an answer's status and length, skipping its body, as wrk
 *  does. */
export const pacedLoad = async (
  url: string,
  headers: Record<string, string>,
  rate: number,
  {
    seconds = Number.POSITIVE_INFINITY,
    stop = () => false,
    warmupSeconds = 0,
  }: { seconds?: number; stop?: () => boolean; warmupSeconds?: number },
): Promise<Paced> => {
  const target = new URL(url);
  const request = Buffer.from(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n',
    'latin1',
  );
  const latencies: number[] = [];
  const waiting: number[] = [];
  let start = performance.now();
  const idle: Connection[] = [];
  let unexpected = 0;
  let errors = 0;
  const send = (c: Connection, due: number) => {
    // Sent early (a timer's granularity), its latency counts from when it was sent.
    c.due = Math.min(due, performance.now());
    c.socket.write(request);
  };
  const slowWindows = new Set<number>();
  let measuredFrom = start;
  const finish = (c: Connection) => {
    const ms = performance.now() - c.due!;
    if (c.due! >= measuredFrom) {
      latencies.push(ms);
      if (ms > SLOW_MS) slowWindows.add(Math.floor((c.due! - measuredFrom) / WINDOW_MS));
    }
    if (c.status !== 200) unexpected += 1;
    c.due = null;
    const next = waiting.shift();
    if (next === undefined) idle.push(c);
    else send(c, next);
  };
  const read = (c: Connection, chunk: Buffer) => {
    let data = chunk;
    while (data.length > 0) {
      if (c.left > 0) {
        const n = Math.min(c.left, data.length);
        c.left -= n;
        data = data.subarray(n);
        if (c.left === 0) finish(c);
        continue;
      }
      const head = c.head === null ? data : Buffer.concat([c.head, data]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        c.head = head;
        return;
      }
      c.head = null;
      const text = head.toString('latin1', 0, end);
      c.status = Number(text.slice(9, 12));
      c.left = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
      data = head.subarray(end + 4);
      if (c.left === 0) finish(c);
    }
  };
  const open = () =>
    new Promise<Connection>((resolve, reject) => {
      const socket = net.connect(Number(target.port), target.hostname);
      const c: Connection = { socket, due: null, head: null, left: 0, status: 0 };
      socket.setNoDelay(true);
      socket.once('connect', () => resolve(c));
      socket.on('data', (chunk: Buffer) => read(c, chunk));
      socket.on('error', (err) => {
        errors += 1;
        reject(err);
      });
      // A connection the server closed: its request (if any) failed, and it is not used again.
      socket.on('close', () => {
        if (c.due !== null) errors += 1;
        c.due = null;
        const at = idle.indexOf(c);
        if (at !== -1) idle.splice(at, 1);
      });
    });
  const connections = await Promise.all(Array.from({ length: CONNECTIONS }, open));
  idle.push(...connections);
  start = performance.now();
  measuredFrom = start + warmupSeconds * 1000;
  let i = 0;
  while (!stop() && i < rate * (warmupSeconds + seconds)) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    // Behind its schedule, it still lets answers (and whatever else runs) in between.
    else if (i % 64 === 63) await new Promise((r) => setImmediate(r));
    const c = idle.pop();
    if (c === undefined) waiting.push(due);
    else send(c, due);
    i += 1;
  }
  const deadline = performance.now() + 30_000;
  while ((waiting.length > 0 || connections.some((c) => c.due !== null)) && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 10));
  const elapsed = (performance.now() - measuredFrom) / 1000;
  for (const c of connections) c.socket.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rate,
    achieved: latencies.length / elapsed,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    p999: round(percentile(sorted, 0.999)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
    unexpected,
    errors: errors + waiting.length,
    slow: slowness(slowWindows),
  };
};

/** pacedLoad in a process of its own (bench/paced-client.ts), after WARMUP seconds at the same
 *  pace unmeasured; `stop` is asked every 50 ms. */
export const pacedLoadApart = async (
  url: string,
  headers: Record<string, string>,
  rate: number,
  { seconds, stop }: { seconds?: number; stop?: () => boolean },
): Promise<Paced & { clientCpuMs: number }> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('paced-client.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        PACED_URL: url,
        PACED_HEADERS: JSON.stringify(headers),
        PACED_RATE: String(rate),
        ...(seconds === undefined ? {} : { PACED_SECONDS: String(seconds) }),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');
  const timer =
    stop === undefined
      ? null
      : setInterval(() => {
          if (stop()) child.stdin.end();
        }, 50);
  const [code] = (await exited) as [number | null];
  if (timer !== null) clearInterval(timer);
  if (code !== 0) throw new Error(`the paced client exited with ${code}`);
  return JSON.parse(out) as Paced & { clientCpuMs: number };
};

/** Runs of slow windows (adjacent ones are one run), and the median time between their starts. */
const slowness = (windows: ReadonlySet<number>): Paced['slow'] => {
  const sorted = [...windows].sort((a, b) => a - b);
  const starts = sorted.filter((w, i) => i === 0 || sorted[i - 1] !== w - 1);
  const gaps = starts.slice(1).map((w, i) => ((w - starts[i]!) * WINDOW_MS) / 1000);
  const mid = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
  return { windows: sorted.length, runs: starts.length, everyS: mid ?? null };
};
