import type { ExecutionContext } from 'ava';
import { once } from 'node:events';
import http, { type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import {
  createWatchlog,
  type Logger,
  type Watchlog,
  type WatchlogOptions,
  type WatchlogStats,
} from '../../src/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';

export interface Lines {
  warn: string[];
  error: string[];
  info: string[];
}

/** A logger that keeps what it is told. */
export const captureLogger = (): { logger: Logger; lines: Lines } => {
  const lines: Lines = { warn: [], error: [], info: [] };
  return {
    lines,
    logger: {
      warn: (m) => {
        lines.warn.push(m);
      },
      error: (m) => {
        lines.error.push(m);
      },
      info: (m) => {
        lines.info.push(m);
      },
    },
  };
};

/** Fast test defaults: a short flush interval and short retry delays. */
export const testOptions = (endpoint: string, overrides: Partial<WatchlogOptions> = {}): WatchlogOptions => ({
  endpoint,
  apiKey: 'wl_test_key',
  serviceName: 'shop',
  environment: 'staging',
  flushIntervalMs: 20,
  retryInitialDelayMs: 10,
  retryMaxDelayMs: 50,
  ...overrides,
});

/** A receiver and a client sending to it, both closed at teardown. */
export const withReceiver = async (t: ExecutionContext, overrides: Partial<WatchlogOptions> = {}) => {
  const receiver = await startReceiver();
  const { logger, lines } = captureLogger();
  const watchlog = createWatchlog(testOptions(receiver.url, { logger, ...overrides }));
  t.teardown(async () => {
    await watchlog.close({ timeoutMs: 200 });
    await receiver.close();
  });
  return { receiver, watchlog, lines };
};

/** A port nothing listens on (until a receiver is started on it). */
export const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/** Starts a node:http server on 127.0.0.1 (closed at teardown) and returns its base URL. */
export const listen = async (t: ExecutionContext, server: Server): Promise<string> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

export const serve = (t: ExecutionContext, handler: RequestListener) => listen(t, http.createServer(handler));

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export const request = async (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
};

/** Every queued event is accounted for exactly once. */
export const balanced = (s: WatchlogStats): boolean =>
  s.queued === s.sent + s.replayed + s.rejected + s.dropped + s.failures + s.pending;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds (timing-free waits: the suite runs in parallel on small machines). */
export const until = async (check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
};

export type { Receiver, IncomingHttpHeaders, Watchlog };
