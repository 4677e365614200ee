import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BATCH_SIZE } from './ingest.ts';
import {
  CONNECTIONS,
  DURATION,
  EVENT,
  json,
  load,
  projectWithKey,
  startWatchlog,
  verdict,
  type LoadResult,
} from './support.ts';

/** Issue 34's target: a log sink forwards at least 20,000 events/s to an HTTP receiver on
 *  127.0.0.1, with its lag under 2 s once the load ends, beside the batched ingest rate of the
 *  same run. Two sinks: one forwards while the load runs (its lag after the load: it can go no
 *  faster than ingest), the other is paused during the load and resumed after it, so its rate is
 *  the sink's own on a backlog of every event of the load. */

export interface SinksReport {
  ingest: LoadResult;
  ingestEventsPerSec: number;
  events: number;
  forwarded: number;
  /** From the end of the load until the live sink's receiver had every event. */
  lagMs: number;
  requests: number;
  sinkBatch: number;
  /** The paused sink, resumed after the load: every event forwarded from its backlog, timed from
   *  its first request (`startMs`: from the PUT until then, the supervisor's next look at the
   *  sinks read model, once a second, and the first batch). */
  backlog: { forwarded: number; requests: number; startMs: number; ms: number; perSec: number };
}

const SINK_BATCH = 2000;

/** Counts the NDJSON lines it is sent and when; answers 200 once it has read each body. */
const receiver = async () => {
  let lines = 0;
  let requests = 0;
  let first = 0;
  let firstLines = 0;
  let last = 0;
  const server = http.createServer((req, res) => {
    let n = 0;
    req.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) n += 1;
    });
    req.on('end', () => {
      lines += n;
      requests += 1;
      last = Date.now();
      if (first === 0) {
        first = last;
        firstLines = n;
      }
      res.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`,
    stats: () => ({ lines, requests, first, firstLines, last }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const eventObject = JSON.parse(EVENT) as Record<string, unknown>;
let batches = 0;
const freshBatch = (): string => {
  batches += 1;
  return JSON.stringify(
    Array.from({ length: BATCH_SIZE }, (_, i) => ({ ...eventObject, idempotency_key: `sink-${batches}-${i}` })),
  );
};

const untilReceived = async (sink: { stats: () => { lines: number } }, events: number, since: number) => {
  while (sink.stats().lines < events && Date.now() - since < 120_000) await new Promise((r) => setTimeout(r, 10));
};

export const sinksBenchmark = async (): Promise<SinksReport> => {
  const live = await receiver();
  const paused = await receiver();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-sinks-'));
  const server = await startWatchlog(dataDir, { WATCHLOG_SINK_BATCH_SIZE: String(SINK_BATCH) });
  try {
    const project = await projectWithKey(server, 'bench-sinks', { rate_limit: 10_000_000 });
    const sinks = `${server.base}/v1/projects/${project.id}/sinks`;
    const headers = { ...server.auth, 'content-type': 'application/json' };
    const create = (url: string, active: boolean) =>
      json<{ id: string }>(sinks, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'http', url, secret: 'bench-secret-1', active }),
      });
    await create(live.url, true);
    const backlog = await create(paused.url, false);
    const ingest = await load({
      url: `${server.base}/v1/audit/batch`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': project.key },
      requests: [{ setupRequest: (request) => ({ ...request, body: freshBatch() }) }],
    });
    const ended = Date.now();
    const events = (ingest.warmupOk + ingest.ok) * BATCH_SIZE;
    await untilReceived(live, events, ended);
    const s = live.stats();
    const resumed = Date.now();
    await json(`${sinks}/${backlog.id}`, { method: 'PUT', headers, body: JSON.stringify({ active: true }) });
    await untilReceived(paused, s.lines, resumed);
    const drained = paused.stats();
    const ms = Math.max(1, drained.last - drained.first);
    return {
      ingest,
      ingestEventsPerSec: ingest.requestsPerSec * BATCH_SIZE,
      events,
      forwarded: s.lines,
      lagMs: Math.max(0, s.last - ended),
      requests: s.requests,
      sinkBatch: SINK_BATCH,
      backlog: {
        forwarded: drained.lines,
        requests: drained.requests,
        startMs: drained.first - resumed,
        ms,
        // The first request's lines went out before `first`: the rate is of those after it.
        perSec: ((drained.lines - drained.firstLines) / ms) * 1000,
      },
    };
  } finally {
    await server.child.stop();
    await live.close();
    await paused.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const printSinks = (r: SinksReport): string[] => [
  `sinks: batched ingest (${BATCH_SIZE} events a request) for ${DURATION} s at ${CONNECTIONS} connections, ` +
    `an http sink (signed NDJSON, ${r.sinkBatch} records a request) to a receiver on 127.0.0.1`,
  `ingest (same run): ${r.ingestEventsPerSec.toFixed(0)} events/s, p99 ${r.ingest.p99} ms`,
  `live sink: ${r.forwarded} of ${r.events} events in ${r.requests} requests; lag after the load: ${r.lagMs} ms   ` +
    `${verdict(r.forwarded >= r.events && r.lagMs < 2000)} (target < 2 s)`,
  `backlog sink (paused during the load, resumed; first request ${r.backlog.startMs} ms after): ` +
    `${r.backlog.forwarded} events in ${r.backlog.requests} requests, ${r.backlog.ms} ms, ` +
    `${r.backlog.perSec.toFixed(0)} events/s   ${verdict(r.backlog.perSec >= 20_000)} (target >= 20,000 events/s)`,
];
