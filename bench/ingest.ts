import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, freePort, json, load, loginWhenReady, startProcess, verdict, type LoadResult } from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A realistic event (~600 bytes) with fields to mask. */
export const EVENT = JSON.stringify({
  path: '/api/orders/123', method: 'POST', status_code: 201, response_time: 37, identifier: 'user-42',
  service_name: 'orders', environment: 'production', user_email: 'jane@example.com', user_name: 'Jane',
  user_roles: ['buyer'], tenant_id: 'acme', ip: '203.0.113.9', request_id: 'req-8f14e45f',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  query_params: { page: '1' }, request_body: { item: 'sku-1', qty: 2, card: '4111 1111 1111 1111', password: 'hunter2' },
  response_body: { ok: true, order_id: 'ord-123' },
});

export interface IngestReport {
  bare: LoadResult;
  ingest: LoadResult;
  ratio: number;
  lagMs: number;
  events: number;
}

const bareKoa = async (): Promise<LoadResult> => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v1/audit`;
  const server = await startProcess(['--import', 'tsx', path.join(root, 'bench/bare-server.ts')], { PORT: String(port) },
    async () => (await fetch(url, { method: 'POST', body: '{}' })).status === 202);
  try {
    return await load({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: EVENT });
  } finally {
    await server.stop();
  }
};

export const ingestBenchmark = async (): Promise<IngestReport> => {
  const bare = await bareKoa();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-'));
  const admin = { email: 'bench@example.com', password: 'bench-password-1' };
  const server = await startProcess([path.join(root, 'dist/src/main.js'), 'start'], {
    PORT: String(port), HOST: '127.0.0.1', WATCHLOG_DATA_DIR: dataDir, WATCHLOG_LOG_LEVEL: 'warn',
    WATCHLOG_ADMIN_EMAIL: admin.email, WATCHLOG_ADMIN_PASSWORD: admin.password,
  }, async () => (await fetch(`${base}/healthz`)).ok);
  try {
    const token = await loginWhenReady(base, admin);
    const auth = { authorization: `Bearer ${token}` };
    const project = await json<{ id: string }>(`${base}/v1/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'bench' }) });
    const { key } = await json<{ key: string }>(`${base}/v1/projects/${project.id}/api-keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'bench' }) });
    const ingest = await load({
      url: `${base}/v1/audit`, method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: EVENT,
    });
    // Lag: from the end of the load until every accepted event (warm-up included) is listed.
    const loadEnded = Date.now();
    const expected = ingest.warmupOk + ingest.ok;
    const countUrl = `${base}/v1/audit?limit=1&project_id=${project.id}`;
    let events = 0;
    while (events < expected && Date.now() - loadEnded < 30_000) {
      events = (await json<{ pagination: { totalItems: number } }>(countUrl, { headers: auth })).pagination.totalItems;
      if (events < expected) await new Promise((r) => setTimeout(r, 10));
    }
    return { bare, ingest, ratio: ingest.requestsPerSec / bare.requestsPerSec, lagMs: Date.now() - loadEnded, events };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const printIngest = (r: IngestReport): string[] => {
  const row = (name: string, l: LoadResult) =>
    `${name.padEnd(24)} ${l.requestsPerSec.toFixed(0).padStart(8)} req/s   p50 ${String(l.p50).padStart(4)} ms   p99 ${String(l.p99).padStart(4)} ms   non-2xx ${l.non2xx + l.errors}`;
  return [
    `ingest: ${DURATION} s at ${CONNECTIONS} connections, ~${EVENT.length}-byte events`,
    row('bare Koa (baseline)', r.bare),
    row('watchlog POST /v1/audit', r.ingest),
    `ratio watchlog / bare: ${(r.ratio * 100).toFixed(1)}%   ${verdict(r.ratio >= 0.5)} (target >= 50%)`,
    `ingest p99: ${r.ingest.p99} ms   ${verdict(r.ingest.p99 < 50)} (target < 50 ms)`,
    `projector lag after the load: ${r.lagMs} ms for ${r.events} events   ${verdict(r.lagMs < 1000)} (target < 1 s)`,
  ];
};
