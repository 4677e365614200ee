import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startDnsServer } from '../test/helpers/dns-server.ts';

/** The monitors bench's mix of kinds, as a team would run them: of every 20 monitors, 14 HTTP
 *  checks of a JSON API with a body and a JSON assertion, 3 TCP connects, 2 DNS questions to a
 *  resolver on 127.0.0.1, and one heartbeat that the bench beats every interval. The targets run
 *  in the bench's process, on 127.0.0.1. */

export type Kind = 'http' | 'tcp' | 'dns' | 'heartbeat';

export const kindOf = (i: number): Kind => {
  const slot = i % 20;
  return slot < 14 ? 'http' : slot < 17 ? 'tcp' : slot < 19 ? 'dns' : 'heartbeat';
};

export interface KindTargets {
  /** Requests the JSON API answered. */
  requests(): number;
  close(): Promise<void>;
  /** A monitor's body (without `project_id`) for the i-th monitor, at `intervalSeconds`. */
  monitor(i: number, intervalSeconds: number): Record<string, unknown>;
}

const listening = async (server: net.Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

export const startKindTargets = async (): Promise<KindTargets> => {
  let requests = 0;
  const body = JSON.stringify({ status: 'ok', version: '1.4.2', checks: { db: 'ok', queue: 'ok' } });
  const api = http.createServer((_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  api.keepAliveTimeout = 1000;
  const tcp = net.createServer((socket) => socket.end());
  const [apiPort, tcpPort] = await Promise.all([listening(api), listening(tcp)]);
  const dns = await startDnsServer({ 'db.bench.example': { A: ['10.1.2.3'] } });
  return {
    requests: () => requests,
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => api.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
        dns.close(),
      ]);
    },
    monitor(i, interval) {
      const common = { name: `bench-${i}`, interval_seconds: interval };
      switch (kindOf(i)) {
        case 'http':
          return {
            ...common,
            url: `http://127.0.0.1:${apiPort}/health?m=${i}`,
            timeout_seconds: 5,
            assertions: [
              { source: 'body', op: 'contains', value: '"status"' },
              { source: 'json', path: '$.status', op: 'equals', value: 'ok' },
            ],
          };
        case 'tcp':
          return { ...common, type: 'tcp', url: `tcp://127.0.0.1:${tcpPort}`, timeout_seconds: 5 };
        case 'dns':
          return { ...common, type: 'dns', hostname: 'db.bench.example', resolver: dns.address, timeout_seconds: 5 };
        case 'heartbeat':
          return { ...common, type: 'heartbeat', grace_seconds: interval };
      }
    },
  };
};

/** Beats every heartbeat URL once per `everyMs`, spread over the period; stop() ends it. */
export const beatEvery = (urls: readonly string[], everyMs: number): { stop(): void; beats(): number } => {
  let beats = 0;
  const timers = urls.map((url, i) => {
    const beat = () => {
      void fetch(url).then(
        (res) => {
          if (res.ok) beats += 1;
          return res.arrayBuffer();
        },
        () => undefined,
      );
    };
    const start = setTimeout(
      () => {
        beat();
        timers[i] = setInterval(beat, everyMs);
      },
      (everyMs * i) / Math.max(1, urls.length),
    );
    return start;
  });
  return {
    stop: () => {
      for (const t of timers) clearTimeout(t);
    },
    beats: () => beats,
  };
};
