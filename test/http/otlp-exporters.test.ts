import { once } from 'node:events';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import test from 'ava';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type ReadableSpan, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** Real OpenTelemetry JS: an Express app on 127.0.0.1 instrumented by the http and express
 *  instrumentations, its spans exported by the official OTLP exporters (protobuf, then JSON with
 *  gzip) to a running watchlog; every request must arrive once, with the mapped fields. */

let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;
let app: Server;
let appUrl: string;

/** The exporter the provider's processor hands spans to: switched per test. */
let current: SpanExporter | null = null;
const exported: Array<{ code: number; error?: Error }> = [];
const switching: SpanExporter = {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
    if (current === null) return done({ code: 0 });
    current.export(spans, (result) => {
      exported.push(result);
      done(result);
    });
  },
  shutdown: async () => undefined,
};
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'orders-api', 'deployment.environment.name': 'stage' }),
  spanProcessors: [new SimpleSpanProcessor(switching)],
});

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token));
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Only the app's requests: not the exporter's own, nor the test's calls to watchlog.
        ignoreIncomingRequestHook: (req) => req.socket.localPort !== Number(new URL(appUrl).port),
        requestHook: (span, req) => {
          const user = 'headers' in req ? req.headers['x-user'] : undefined;
          if (typeof user === 'string') span.setAttribute('enduser.id', user);
        },
      }),
      new ExpressInstrumentation(),
    ],
  });
  // Required after the instrumentations are registered, which patch modules as they load.
  const require = createRequire(import.meta.url);
  const express = require('express') as typeof import('express');
  const http = require('node:http') as typeof import('node:http');
  const shop = express();
  shop.get('/orders/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  shop.post('/orders', (_req, res) => {
    res.status(201).json({ id: 7 });
  });
  shop.put('/orders/:id', (_req, res) => {
    res.status(204).end();
  });
  shop.patch('/orders/:id', (_req, res) => {
    res.status(204).end();
  });
  shop.delete('/orders/:id', () => {
    throw new Error('orders cannot be deleted');
  });
  app = http.createServer(shop);
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
});

test.after.always(async () => {
  await provider.shutdown();
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
  await server?.stop();
});

/** The app's five requests, each with its own user (so each run's events are told apart). */
const drive = async (run: string) => {
  const user = (n: number) => `${run}-user-${n}`;
  const call = (method: string, path: string, n: number) =>
    fetch(appUrl + path, { method, headers: { 'x-user': user(n), 'user-agent': `agent-${run}` } }).then((r) =>
      r.arrayBuffer(),
    );
  await call('GET', '/orders/41?expand=items&tag=a&tag=b', 1);
  await call('POST', '/orders', 2);
  await call('PUT', '/orders/41', 3);
  await call('PATCH', '/orders/41', 4);
  await call('DELETE', '/orders/41', 5);
  await provider.forceFlush();
};

// biome-ignore lint/suspicious/noExplicitAny: events as the API answers them
const eventsOf = async (run: string): Promise<any[]> => {
  const list = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&service_name=orders-api&limit=100`, {
    token,
  });
  const mine = list.body.data.filter((e: { identifier: string }) => e.identifier.startsWith(`${run}-`));
  return Promise.all(
    mine.map(async (e: { id: string }) => (await api(server.url, 'GET', `/v1/audit/${e.id}`, { token })).body),
  );
};

const checkRun = async (t: import('ava').ExecutionContext, run: string) => {
  const events = await eventually(async () => {
    const found = await eventsOf(run);
    return found.length >= 4 ? found : undefined;
  });
  t.true(
    exported.every((r) => r.code === 0),
    JSON.stringify(exported),
  );
  const byUser = new Map(events.map((e) => [e.identifier, e]));
  t.is(events.length, 4, 'GET, POST, PUT, DELETE once each; PATCH skipped by default');
  const get = byUser.get(`${run}-user-1`);
  t.like(get, {
    method: 'GET',
    path: '/orders/:id',
    status_code: 200,
    service_name: 'orders-api',
    environment: 'staging',
    user_agent: `agent-${run}`,
    query_params: { expand: 'items', tag: ['a', 'b'] },
  });
  t.regex(get.request_id, /^[0-9a-f]{32}$/);
  t.true(Number.isInteger(get.response_time) && get.response_time >= 0);
  t.regex(get.ip, /127\.0\.0\.1$/);
  t.like(byUser.get(`${run}-user-2`), { method: 'POST', path: '/orders', status_code: 201 });
  t.like(byUser.get(`${run}-user-3`), { method: 'PUT', path: '/orders/:id', status_code: 204 });
  const failed = byUser.get(`${run}-user-5`);
  t.like(failed, { method: 'DELETE', path: '/orders/:id', status_code: 500 });
  t.false(byUser.has(`${run}-user-4`));
};

test.serial('the protobuf exporter, configured by OTEL_EXPORTER_OTLP_* as docs/otlp.md says', async (t) => {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${server.url}/v1/otlp`;
  process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${apiKey}`;
  try {
    current = new ProtoExporter();
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  }
  await drive('proto');
  await checkRun(t, 'proto');
});

test.serial('the JSON exporter, gzipped', async (t) => {
  current = new JsonExporter({
    url: `${server.url}/v1/otlp/v1/traces`,
    headers: { 'x-api-key': apiKey },
    compression: 'gzip' as never,
  });
  await drive('json');
  await checkRun(t, 'json');
});

test.serial('the express middleware spans are skipped and counted as not SERVER', async (t) => {
  const { body } = await server.telemetry.scrape();
  const count = /watchlog_otlp_spans_dropped_total\{reason="not_server"\} (\d+)/.exec(body)?.[1];
  t.true(
    Number(count) > 0,
    body
      .split('\n')
      .filter((l) => l.includes('otlp'))
      .join('\n'),
  );
  const patch = /watchlog_otlp_spans_dropped_total\{reason="unsupported_method"\} (\d+)/.exec(body)?.[1];
  t.is(Number(patch), 2);
});
