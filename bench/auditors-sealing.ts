import autocannon from 'autocannon';
import {
  CONNECTIONS,
  DURATION,
  EVENT,
  WARMUP,
  alternatingSlices,
  projectWithKey,
  singleEventIngest,
  type Watchlog,
} from './support.ts';

/** The auditors section's measures of the checkpoint sealer (auditors.ts): what it costs
 *  single-event ingest, and how soon after an append a signed checkpoint covers it. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- 1. sealing on against off ------------------------------------------------------------

export interface IngestSide {
  requestsPerSec: number;
  slices: number[];
  p99s: number[];
  errors: number;
}

export const ingestSides = async (
  servers: readonly Watchlog[],
  keys: readonly string[],
  slices: number,
): Promise<IngestSide[]> => {
  for (const [i, w] of servers.entries())
    if (WARMUP > 0)
      await autocannon({ ...singleEventIngest(w.base, keys[i]!), connections: CONNECTIONS, duration: WARMUP });
  const slice = DURATION / slices;
  const results = await alternatingSlices(servers.length, slices, (i) =>
    autocannon({ ...singleEventIngest(servers[i]!.base, keys[i]!), connections: CONNECTIONS, duration: slice }),
  );
  return results.map((runs) => ({
    requestsPerSec: runs.reduce((n, r) => n + r.requests.total, 0) / (slice * runs.length),
    slices: runs.map((r) => r.requests.total / slice),
    p99s: runs.map((r) => r.latency.p99),
    errors: runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
  }));
};

// --- 2. checkpoint latency under load -----------------------------------------------------

export interface CheckpointLatency {
  /** From sending the append to seeing a checkpoint that covers it, per sample. */
  samplesMs: number[];
  /** From sending the append to the checkpoint's `signed_at` (the server's clock, the same machine). */
  signedMs: number[];
  /** The append's own answer time, per sample. */
  ackMs: number[];
  /** Single-event ingest meanwhile, req/s. */
  loadPerSec: number;
}

const get = async (w: Watchlog, url: string) => fetch(`${w.base}${url}`, { headers: w.auth });

const treeSize = async (w: Watchlog, projectId: string): Promise<number> => {
  const res = await fetch(`${w.base}/v1/stream?project_id=${projectId}`, { method: 'HEAD', headers: w.auth });
  if (!res.ok) throw new Error(`HEAD /v1/stream: ${res.status}`);
  return Number(res.headers.get('watchlog-tree-size'));
};

export const latestCheckpoint = async (
  w: Watchlog,
  projectId: string,
): Promise<{ size: number; signed_at: string } | null> => {
  const res = await get(w, `/v1/checkpoints/latest?project_id=${projectId}`);
  if (res.status === 404) {
    await res.arrayBuffer();
    return null;
  }
  if (!res.ok) throw new Error(`GET /v1/checkpoints/latest: ${res.status}`);
  return (await res.json()) as { size: number; signed_at: string };
};

/** The marks go to a project of their own that nothing else writes to: its tree size before a
 *  mark is the mark's leaf index, exactly, without reading the loaded project's stream (which
 *  would add a reader's load to what is measured). The projector and the sealer serve every
 *  project alike, so the mark waits for what the loaded project's appends put before it. */
export const checkpointLatency = async (w: Watchlog, loadKey: string, samples: number): Promise<CheckpointLatency> => {
  const marks = await projectWithKey(w, 'auditors-marks');
  const out: CheckpointLatency = { samplesMs: [], signedMs: [], ackMs: [], loadPerSec: 0 };
  let stopLoad: () => void = () => undefined;
  const loaded = new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { ...singleEventIngest(w.base, loadKey), connections: CONNECTIONS, duration: 3600 },
      (err: unknown, r) => (err ? reject(err) : resolve(r)),
    );
    stopLoad = () => instance.stop();
  });
  try {
    await sleep(1000);
    for (let i = 0; i < samples; i += 1) {
      // Until every record of the project so far is sealed: then nothing but the mark is pending.
      let index = await treeSize(w, marks.id);
      for (const deadline = Date.now() + 30_000; ((await latestCheckpoint(w, marks.id))?.size ?? -1) < index; ) {
        if (Date.now() > deadline) throw new Error('the marks project was not sealed within 30 s');
        await sleep(50);
        index = await treeSize(w, marks.id);
      }
      const wall = Date.now();
      const sent = performance.now();
      const res = await fetch(`${w.base}/v1/audit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': marks.key },
        body: EVENT,
      });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`POST /v1/audit: ${res.status}`);
      out.ackMs.push(performance.now() - sent);
      for (;;) {
        const latest = await latestCheckpoint(w, marks.id);
        if (latest !== null && latest.size > index) {
          out.samplesMs.push(performance.now() - sent);
          out.signedMs.push(Date.parse(latest.signed_at) - wall);
          break;
        }
        if (performance.now() - sent > 30_000) throw new Error(`no checkpoint covered leaf ${index} within 30 s`);
        await sleep(10);
      }
      // Spread the marks over the sealer's period rather than just after each of its ticks.
      await sleep((i * 617) % 1000);
    }
  } finally {
    stopLoad();
  }
  out.loadPerSec = (await loaded).requests.average;
  return out;
};
