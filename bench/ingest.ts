import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CONNECTIONS,
  DURATION,
  EVENT,
  freePort,
  json,
  load,
  projectWithKey,
  sampleRss,
  singleEventIngest,
  startProcess,
  startWatchlog,
  verdict,
  type LoadResult,
} from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Events per batch in the batch load, each with an idempotency key of its own, as the SDKs send. */
export const BATCH_SIZE = 100;

export interface BatchReport {
  load: LoadResult;
  eventsPerSec: number;
  lagMs: number;
  events: number;
  /** The server's peak RSS from the start of the load until its events were listed. */
  peakRssMb: number;
}

export interface IngestReport {
  bare: LoadResult;
  ingest: LoadResult;
  ratio: number;
  lagMs: number;
  events: number;
  peakRssMb: number;
  batch: BatchReport;
}

/** Issue 16's memory target: the server's RSS under full ingest load. */
const RSS_TARGET_MB = 300;
const mb = (kb: number) => Math.round(kb / 1024);

/** A batch of BATCH_SIZE events with fresh idempotency keys, built per request. */
const eventObject = JSON.parse(EVENT) as Record<string, unknown>;
let batchCount = 0;
const freshBatch = (): string => {
  batchCount += 1;
  return JSON.stringify(
    Array.from({ length: BATCH_SIZE }, (_, i) => ({
      ...eventObject,
      idempotency_key: `bench-${process.pid}-${batchCount}-${i}`,
    })),
  );
};

/** Polls the list until it holds `expected` events of the project; the ms from `since`. */
const lagUntilListed = async (
  base: string,
  auth: Record<string, string>,
  projectId: string,
  expected: number,
  since: number,
): Promise<{ lagMs: number; events: number }> => {
  const countUrl = `${base}/v1/audit?limit=1&project_id=${projectId}`;
  let events = 0;
  while (events < expected && Date.now() - since < 120_000) {
    events = (await json<{ pagination: { totalItems: number } }>(countUrl, { headers: auth })).pagination.totalItems;
    if (events < expected) await new Promise((r) => setTimeout(r, 10));
  }
  return { lagMs: Date.now() - since, events };
};

const bareKoa = async (): Promise<LoadResult> => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v1/audit`;
  const server = await startProcess(
    ['--import', 'tsx', path.join(root, 'bench/bare-server.ts')],
    { PORT: String(port) },
    async () => (await fetch(url, { method: 'POST', body: '{}' })).status === 202,
  );
  try {
    return await load({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: EVENT });
  } finally {
    await server.stop();
  }
};

export const ingestBenchmark = async (): Promise<IngestReport> => {
  const bare = await bareKoa();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-'));
  const server = await startWatchlog(dataDir);
  const { base, auth } = server;
  try {
    const project = await projectWithKey(server, 'bench');
    const singleRss = sampleRss(server.child.process.pid!);
    const ingest = await load(singleEventIngest(base, project.key));
    // Lag: from the end of the load until every accepted event (warm-up included) is listed.
    const single = await lagUntilListed(base, auth, project.id, ingest.warmupOk + ingest.ok, Date.now());
    const singlePeakKb = singleRss.stop().peakKb;

    // Batches, into a project of their own, with a key whose rate limit does not hold them back.
    const batchProject = await projectWithKey(server, 'bench-batch', { rate_limit: 10_000_000 });
    const batchRss = sampleRss(server.child.process.pid!);
    const batchLoad = await load({
      url: `${base}/v1/audit/batch`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': batchProject.key },
      requests: [{ setupRequest: (request) => ({ ...request, body: freshBatch() }) }],
    });
    const batched = await lagUntilListed(
      base,
      auth,
      batchProject.id,
      (batchLoad.warmupOk + batchLoad.ok) * BATCH_SIZE,
      Date.now(),
    );
    const batchPeakKb = batchRss.stop().peakKb;
    return {
      bare,
      ingest,
      ratio: ingest.requestsPerSec / bare.requestsPerSec,
      lagMs: single.lagMs,
      events: single.events,
      peakRssMb: mb(singlePeakKb),
      batch: {
        load: batchLoad,
        eventsPerSec: batchLoad.requestsPerSec * BATCH_SIZE,
        ...batched,
        peakRssMb: mb(batchPeakKb),
      },
    };
  } finally {
    await server.child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const printIngest = (r: IngestReport): string[] => {
  const row = (name: string, l: LoadResult) =>
    `${name.padEnd(24)} ${l.requestsPerSec.toFixed(0).padStart(8)} req/s   p50 ` +
    `${String(l.p50).padStart(4)} ms   p99 ${String(l.p99).padStart(4)} ms   non-2xx ` +
    `${l.non2xx + l.errors}`;
  return [
    `ingest: ${DURATION} s at ${CONNECTIONS} connections, ~${EVENT.length}-byte events`,
    row('bare Koa (baseline)', r.bare),
    row('watchlog POST /v1/audit', r.ingest),
    `ratio watchlog / bare: ${(r.ratio * 100).toFixed(1)}%   ${verdict(r.ratio >= 0.5)} (target >= 50%)`,
    `ingest p99: ${r.ingest.p99} ms   ${verdict(r.ingest.p99 < 50)} (target < 50 ms)`,
    `projector lag after the load: ${r.lagMs} ms for ${r.events} events   ${verdict(r.lagMs < 1000)} (target < 1 s)`,
    `server RSS under single-event ingest, fresh data dir (peak): ${r.peakRssMb} MB   ` +
      `${verdict(r.peakRssMb < RSS_TARGET_MB)} (target < ${RSS_TARGET_MB} MB)`,
    row(`watchlog POST /v1/audit/batch (${BATCH_SIZE} events, each keyed)`, r.batch.load),
    `batched ingest: ${r.batch.eventsPerSec.toFixed(0)} events/s ` +
      `(x${(r.batch.eventsPerSec / Math.max(1, r.ingest.requestsPerSec)).toFixed(1)} single-event ` +
      `ingest)   ${verdict(r.batch.eventsPerSec >= 50_000)} (target >= 50,000 events/s)`,
    `projector lag after the batch load: ${r.batch.lagMs} ms for ${r.batch.events} events   ` +
      `${verdict(r.batch.lagMs < 2000)} (target < 2 s)`,
    `server RSS under batched ingest, fresh data dir (peak): ${r.batch.peakRssMb} MB   ` +
      `${verdict(r.batch.peakRssMb < RSS_TARGET_MB)} (target < ${RSS_TARGET_MB} MB)`,
  ];
};
