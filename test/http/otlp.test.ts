import { gzipSync } from 'node:zlib';
import test from 'ava';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** OTLP/HTTP trace ingest at its edges: the bodies are made by OpenTelemetry's own serializers
 *  from real spans, or written by hand where a client may send what no SDK would. */

let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;
const LIMIT = 64 * 1024;

test.before(async () => {
  server = await startTestServer({ env: { WATCHLOG_BATCH_BODY_LIMIT_BYTES: String(LIMIT) } });
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token));
});
test.after.always(() => server.stop());

const PROTOBUF = 'application/x-protobuf';

type SpanSpec = {
  name?: string;
  kind?: SpanKind;
  attributes?: Record<string, string | number>;
  error?: string;
  exception?: string;
};

/** Real spans, ended, with `service` as their resource's service.name. */
const spansOf = (service: string, specs: SpanSpec[], environment = 'production') => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'deployment.environment': environment }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('otlp-test');
  for (const spec of specs) {
    const span = tracer.startSpan(spec.name ?? 'request', { kind: spec.kind ?? SpanKind.SERVER });
    span.setAttributes(spec.attributes ?? {});
    if (spec.exception) span.recordException(new Error(spec.exception));
    if (spec.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
    span.end();
  }
  return exporter.getFinishedSpans();
};

const http = (method: string, route: string, extra: Record<string, string | number> = {}) => ({
  'http.request.method': method,
  'http.route': route,
  'http.response.status_code': 200,
  ...extra,
});

const post = (body: Uint8Array | string, headers: Record<string, string>, key: string | null = apiKey) =>
  fetch(`${server.url}/v1/otlp/v1/traces`, {
    method: 'POST',
    headers: { ...(key === null ? {} : { 'x-api-key': key }), ...headers },
    body,
  });

const eventsOf = async (service: string, expected: number) =>
  eventually(async () => {
    const list = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&service_name=${service}&limit=100`, {
      token,
    });
    return list.body.data.length >= expected ? list.body.data : undefined;
  });

type Details = Array<{ path: string; message: string }>;
const detailsOf = async (res: Response): Promise<Details> =>
  ((await res.json()) as { error: { details: Details } }).error.details;

const detail = async (id: string) => (await api(server.url, 'GET', `/v1/audit/${id}`, { token })).body;

const dropped = async (reason: string) => {
  const { body } = await server.telemetry.scrape();
  return Number(new RegExp(`watchlog_otlp_spans_dropped_total\\{reason="${reason}"\\} (\\d+)`).exec(body)?.[1]);
};

/** A google.rpc.Status read as the protobuf wire format has it: code (field 1), message (field 2). */
const statusOf = async (res: Response) => {
  const bytes = Buffer.from(await res.arrayBuffer());
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte >= 0x80);
    return value;
  };
  const status = { code: 0, message: '' };
  while (at < bytes.length) {
    const tag = varint();
    if (tag === 0x08) status.code = varint();
    else if (tag === 0x12) {
      const length = varint();
      status.message = bytes.toString('utf8', at, at + length);
      at += length;
    } else throw new Error(`not a Status: tag ${tag}`);
  }
  return status;
};

test.serial('a retried export stores each span once, protobuf and JSON alike', async (t) => {
  const spans = spansOf('retry-api', [
    { attributes: http('GET', '/a') },
    { attributes: http('POST', '/b', { 'enduser.id': 'ada' }) },
  ]);
  const proto = ProtobufTraceSerializer.serializeRequest(spans)!;
  for (let i = 0; i < 2; i++) {
    const res = await post(proto, { 'content-type': PROTOBUF });
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), PROTOBUF);
    t.deepEqual(ProtobufTraceSerializer.deserializeResponse(new Uint8Array(await res.arrayBuffer())), {});
  }
  const json = JsonTraceSerializer.serializeRequest(spans)!;
  const res = await post(json, { 'content-type': 'application/json' });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), {});
  const events = await eventsOf('retry-api', 2);
  // Time for a duplicate, had one been stored, to reach the read model.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is((await eventsOf('retry-api', 2)).length, 2);
  t.deepEqual(events.map((e: { identifier: string }) => e.identifier).sort(), ['ada', 'anonymous']);
});

test.serial('the same span twice in one export is stored once', async (t) => {
  const [span] = spansOf('twice-api', [{ attributes: http('GET', '/twice') }]);
  const res = await post(ProtobufTraceSerializer.serializeRequest([span!, span!])!, { 'content-type': PROTOBUF });
  t.is(res.status, 200);
  t.is((await eventsOf('twice-api', 1)).length, 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is((await eventsOf('twice-api', 1)).length, 1);
});

test.serial('gzip bodies are inflated; one that inflates past the limit is 413, a broken one 400', async (t) => {
  const spans = spansOf('gzip-api', [{ attributes: http('DELETE', '/orders/:id') }]);
  const gz = gzipSync(ProtobufTraceSerializer.serializeRequest(spans)!);
  const ok = await post(gz, { 'content-type': PROTOBUF, 'content-encoding': 'gzip' });
  t.is(ok.status, 200);
  t.like((await eventsOf('gzip-api', 1))[0], { method: 'DELETE', path: '/orders/:id' });
  // 16 MB of zeros gzip to ~16 KB: within the body limit, far beyond it inflated.
  const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
  t.true(bomb.length < LIMIT);
  const big = await post(bomb, { 'content-type': PROTOBUF, 'content-encoding': 'gzip' });
  t.is(big.status, 413);
  const broken = await post(Buffer.from('not gzip'), {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
  });
  t.is(broken.status, 400);
  t.deepEqual(await detailsOf(broken), [{ path: 'body', message: 'is not valid gzip' }]);
  const brokenProto = await post(Buffer.from('not gzip'), { 'content-type': PROTOBUF, 'content-encoding': 'gzip' });
  t.deepEqual(await statusOf(brokenProto), {
    code: 3,
    message: 'validation_error: invalid OTLP export: body is not valid gzip',
  });
  const brotli = await post(gz, { 'content-type': PROTOBUF, 'content-encoding': 'br' });
  t.is(brotli.status, 415);
});

test.serial('415 for another media type, 401 without a good key', async (t) => {
  t.is((await post('{}', { 'content-type': 'text/plain' })).status, 415);
  t.is((await post('{}', { 'content-type': 'application/json; charset=latin1' })).status, 415);
  const none = await post('{}', { 'content-type': 'application/json' }, null);
  t.is(none.status, 401);
  t.is((await post('{}', { 'content-type': 'application/json' }, 'wl_wrong')).status, 401);
});

test.serial('errors of a protobuf request are a protobuf Status; of a JSON one the JSON shape', async (t) => {
  const spans = spansOf('status-api', [{ attributes: http('GET', '/x') }]);
  const proto = ProtobufTraceSerializer.serializeRequest(spans)!;
  const unauthorized = await post(proto, { 'content-type': PROTOBUF }, 'wl_wrong');
  t.is(unauthorized.status, 401);
  t.is(unauthorized.headers.get('content-type'), PROTOBUF);
  t.deepEqual(await statusOf(unauthorized), { code: 16, message: 'unauthorized: invalid or revoked API key' });
  const truncated = await post(proto.subarray(0, proto.length - 3), { 'content-type': PROTOBUF });
  t.is(truncated.status, 400);
  const status = await statusOf(truncated);
  t.is(status.code, 3);
  t.regex(status.message, /^validation_error: invalid OTLP export: resourceSpans\.0\S* /);
  const json = await post('[]', { 'content-type': 'application/json' }, 'wl_wrong');
  t.is(json.status, 401);
  t.like(await json.json(), { error: { code: 'unauthorized' } });
});

test.serial('400 names the field at fault', async (t) => {
  const cases: Array<[unknown, string, string]> = [
    [[], 'body', 'must be an object'],
    [
      { resourceSpans: [{ scopeSpans: [{ spans: [{ kind: 'SERVER' }] }] }] },
      'resourceSpans.0.scopeSpans.0.spans.0.kind',
      '',
    ],
    [
      { resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: 1.5 }] }] }] },
      'resourceSpans.0.scopeSpans.0.spans.0.startTimeUnixNano',
      '',
    ],
    [
      { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'zz' }] }] }] },
      'resourceSpans.0.scopeSpans.0.spans.0.traceId',
      'must be hex',
    ],
  ];
  for (const [body, path, message] of cases) {
    const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    t.is(res.status, 400, path);
    const [d] = await detailsOf(res);
    t.is(d?.path, path);
    if (message) t.is(d?.message, message);
  }
  let deep: unknown = { stringValue: 'x' };
  for (let i = 0; i < 40; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } };
  const nested = { resourceSpans: [{ resource: { attributes: [{ key: 'a', value: deep }] } }] };
  const tooDeep = await post(JSON.stringify(nested), { 'content-type': 'application/json' });
  t.is(tooDeep.status, 400);
  t.is((await detailsOf(tooDeep))[0]?.path, 'body');
  t.is((await post('{"resourceSpans": [', { 'content-type': 'application/json' })).status, 400);
});

test.serial('non-SERVER and non-HTTP spans are skipped and counted; refused spans are a partial success', async (t) => {
  const [notServer = 0, notHttp = 0, invalid = 0] = await Promise.all(
    ['not_server', 'not_http', 'invalid'].map(dropped),
  );
  const spans = spansOf('mixed-api', [
    { kind: SpanKind.CLIENT, attributes: http('GET', '/out') },
    { kind: SpanKind.INTERNAL, name: 'middleware' },
    { attributes: { 'rpc.system': 'grpc' } },
    { attributes: http('GET', '/kept') },
    { attributes: http('GET', '/bad', { 'http.response.status_code': 999 }) },
  ]);
  const res = await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': PROTOBUF });
  t.is(res.status, 200);
  const answer = ProtobufTraceSerializer.deserializeResponse(new Uint8Array(await res.arrayBuffer()));
  t.is(Number(answer.partialSuccess?.rejectedSpans), 1);
  t.regex(answer.partialSuccess?.errorMessage ?? '', /spans\.4 \(event status_code\)/);
  t.is((await eventsOf('mixed-api', 1)).length, 1);
  t.is(await dropped('not_server'), notServer + 2);
  t.is(await dropped('not_http'), notHttp + 1);
  t.is(await dropped('invalid'), invalid + 1);
});

test.serial('the mapping: fallbacks, errors, masking, query strings and a __proto__ key', async (t) => {
  const spans = spansOf(
    'mapped-api',
    [
      {
        attributes: {
          'http.method': 'put',
          'http.target': '/legacy/7?token=s3cret&__proto__=x&a=1&a=2',
          'http.status_code': '503',
          'http.user_agent': 'curl/8',
          'net.sock.peer.addr': '10.0.0.9',
        },
        error: 'upstream down',
      },
      { attributes: http('GET', '/boom', { 'url.query': 'card=4111111111111111' }), exception: 'kaput' },
    ],
    'qa',
  );
  t.is((await post(JsonTraceSerializer.serializeRequest(spans)!, { 'content-type': 'application/json' })).status, 200);
  const events = await Promise.all((await eventsOf('mapped-api', 2)).map((e: { id: string }) => detail(e.id)));
  const legacy = events.find((e) => e.method === 'PUT');
  t.like(legacy, {
    path: '/legacy/7',
    status_code: 503,
    user_agent: 'curl/8',
    ip: '10.0.0.9',
    error_message: 'upstream down',
    environment: 'production',
  });
  t.deepEqual(legacy.query_params, { token: '********', ['__proto__']: 'x', a: ['1', '2'] });
  t.is(Object.getPrototypeOf(legacy.query_params), Object.prototype);
  const boom = events.find((e) => e.path === '/boom');
  t.is(boom.error_message, 'kaput');
  t.not(boom.query_params.card, '4111111111111111');
});

test.serial('project settings: the identifier attribute, the default environment, nearest methods', async (t) => {
  const settings = `/v1/projects/${projectId}/otlp`;
  const put = await api(server.url, 'PUT', settings, {
    token,
    body: { identifier_attribute: 'app.user', default_environment: 'staging', unsupported_methods: 'nearest' },
  });
  t.is(put.status, 200);
  t.truthy(put.body.updated_at);
  const spans = spansOf(
    'settings-api',
    [
      { attributes: http('PATCH', '/p', { 'app.user': 'grace', 'enduser.id': 'ignored' }) },
      { attributes: http('HEAD', '/h', { 'enduser.id': 'linus' }) },
      { attributes: http('OPTIONS', '/o') },
    ],
    'somewhere',
  );
  const skipped = await dropped('unsupported_method');
  t.is((await post(ProtobufTraceSerializer.serializeRequest(spans)!, { 'content-type': PROTOBUF })).status, 200);
  const events = await eventsOf('settings-api', 2);
  const byPath = new Map(events.map((e: { path: string }) => [e.path, e]));
  t.like(byPath.get('/p'), { method: 'PUT', identifier: 'grace', environment: 'staging' });
  t.like(byPath.get('/h'), { method: 'GET', identifier: 'linus' });
  t.is(await dropped('unsupported_method'), skipped + 1);
  const unknown = await api(server.url, 'PUT', settings, { token, body: { default_environment: 'qa' } });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'default_environment',
    'identifier_attribute',
    'unsupported_methods',
  ]);
});

test("a web page's exporter: the preflight answered, the export readable, a key's allowed origins held", async (t) => {
  const origin = 'https://app.example.com';
  const preflight = await fetch(`${server.url}/v1/otlp/v1/traces`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,content-encoding,x-api-key',
    },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), origin);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /X-API-Key/);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Content-Encoding/);
  const body = JsonTraceSerializer.serializeRequest(spansOf('web-cors', [{ attributes: http('GET', '/cart') }]))!;
  const taken = await post(body, { 'content-type': 'application/json', origin });
  t.is(taken.status, 200);
  t.is(taken.headers.get('access-control-allow-origin'), origin);
  t.is((await eventsOf('web-cors', 1)).length, 1);

  const created = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
    token,
    body: { name: 'web-otel', allowed_origins: [origin] },
  });
  t.is(created.status, 201);
  const restricted = created.body.key as string;
  const elsewhere = await post(
    body,
    { 'content-type': 'application/json', origin: 'https://evil.example' },
    restricted,
  );
  t.is(elsewhere.status, 403);
  t.is(elsewhere.headers.get('access-control-allow-origin'), 'https://evil.example', 'the refusal is readable');
  const own = await post(body, { 'content-type': 'application/json', origin }, restricted);
  t.is(own.status, 200);
});
