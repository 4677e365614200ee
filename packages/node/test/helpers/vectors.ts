import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseQuery } from '../../src/adapters/http.ts';
import type { Environment, WireEvent } from '../../src/event.ts';
import type { IdentifyResult } from '../../src/identity.ts';
import { nearestMethod } from '../../src/methods.ts';
import { resolveOptions } from '../../src/options.ts';
import { Recorder } from '../../src/recorder.ts';
import { Reporter } from '../../src/report.ts';
import { incomingRequestId } from '../../src/request-id.ts';

/** The shared vectors (packages/conformance/README.md), read where the workspace keeps them. */
export const readVectors = <T>(file: 'masking.json' | 'events.json'): T =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../conformance/${file}`, import.meta.url)), 'utf8')) as T;

export interface VectorOptions {
  service_name: string;
  environment: Environment;
  capture_request_body: boolean;
  capture_response_body: boolean;
  max_body_bytes: number;
  unsupported_methods: 'skip' | 'nearest';
  anonymous_identifier: string;
  set_request_id_header: boolean;
}

export interface VectorRequest {
  method: string;
  route: string | null;
  url: string;
  path_params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  ip?: string;
}

export interface VectorResponse {
  status: number | null;
  completed: boolean;
  body?: unknown;
  error?: string;
}

/** A case as the generator writes it: `identity` absent means no identify hook. */
export interface EventInput {
  name: string;
  options?: Partial<VectorOptions>;
  request: VectorRequest;
  response: VectorResponse;
  identity?: unknown;
}

export interface EventCase extends EventInput {
  event: Record<string, unknown> | null;
  sets_request_id_header: boolean;
}

export interface EventsFile {
  defaults: { options: VectorOptions };
  cases: EventCase[];
}

export interface Recorded {
  /** The event as JSON carries it (absent fields gone), or null. */
  event: Record<string, unknown> | null;
  /** The X-Request-ID set on the response, if any. */
  header: string | undefined;
  /** Whether the request carried an id the SDK kept (else the event's id is generated). */
  incomingId: boolean;
}

/** Runs one case through the Recorder, as an adapter would: begin on the request, finish with
 *  what the framework saw, an identify hook answering `identity`; the event is caught where the
 *  delivery queue would take it. */
export const recordCase = (c: EventInput, defaults: VectorOptions): Recorded => {
  const o = { ...defaults, ...c.options };
  const options = resolveOptions({
    endpoint: 'https://watchlog.example',
    apiKey: 'wl_test',
    serviceName: o.service_name,
    environment: o.environment,
    captureBodies: { request: o.capture_request_body, response: o.capture_response_body },
    maxBodyBytes: o.max_body_bytes,
    unsupportedMethods: o.unsupported_methods === 'nearest' ? nearestMethod : 'skip',
    anonymousIdentifier: o.anonymous_identifier,
    setRequestIdHeader: o.set_request_id_header,
    logger: null,
  });
  const events: WireEvent[] = [];
  const sink = { enqueue: (event: WireEvent) => void events.push(event), skippedMethod: () => undefined };
  const recorder = new Recorder(options, sink, new Reporter(null, null, options.batchUrl.origin));
  const { request, response } = c;
  const headers: IncomingHttpHeaders = { ...request.headers };
  let header: string | undefined;
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      if (name.toLowerCase() === 'x-request-id') header = value;
    },
  };
  const incomingId = incomingRequestId(headers) !== undefined;
  const exchange = recorder.begin(request.method, headers, res);
  if (exchange === null) return { event: null, header, incomingId };
  if (response.status === null && response.completed) throw new Error(`${c.name}: completed without a status`);
  if (response.error !== undefined) exchange.error = { value: new Error(response.error) };
  if ('body' in response) exchange.responseBody = response.body;
  const identify = 'identity' in c ? () => c.identity as IdentifyResult : undefined;
  recorder.finish(
    exchange,
    {
      res: {
        statusCode: response.status ?? 200,
        headersSent: response.status !== null,
        writableFinished: response.completed,
      },
      route: request.route ?? undefined,
      url: request.url,
      params: request.path_params,
      query: parseQuery(request.url),
      requestBody: request.body,
      ip: request.ip,
      userAgent: headers['user-agent'],
    },
    identify,
    request,
  );
  const event = events[0];
  if (events.length !== 1 || event === undefined) throw new Error(`${c.name}: ${events.length} events recorded`);
  return { event: JSON.parse(JSON.stringify(event)) as Record<string, unknown>, header, incomingId };
};
