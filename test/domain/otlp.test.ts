import test from 'ava';
import fc from 'fast-check';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_OTLP_SETTINGS, environmentOf, mapTraces, queryParamsOf } from '../../src/domain/otlp-mapping.ts';
import { decodeTracesJson } from '../../src/domain/otlp-json.ts';
import { decodeTracesProto, encodeTracesResponseProto } from '../../src/domain/otlp-proto.ts';
import { OtlpDecodeError } from '../../src/domain/otlp-traces.ts';

const spans = () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'unit', 'deployment.environment.name': 'dev' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('unit');
  const server = tracer.startSpan('GET /a/:id', { kind: SpanKind.SERVER });
  server.setAttributes({
    'http.request.method': 'GET',
    'http.route': '/a/:id',
    'url.query': 'q=1',
    'http.response.status_code': 404,
    'client.address': '::1',
    'user_agent.original': 'ua',
    ratio: 0.5,
    below: -5,
    large: 2 ** 50,
    flag: true,
    list: ['x', 'y'],
  });
  server.addEvent('exception', { 'exception.message': 'not found' });
  server.setStatus({ code: SpanStatusCode.ERROR });
  server.end();
  tracer.startSpan('db', { kind: SpanKind.CLIENT }).end();
  return exporter.getFinishedSpans();
};

test('both encodings of the same export decode alike, as the OpenTelemetry serializers write them', (t) => {
  const finished = spans();
  const fromProto = decodeTracesProto(Buffer.from(ProtobufTraceSerializer.serializeRequest(finished)!));
  const json = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(finished)!).toString('utf8'));
  t.deepEqual(fromProto, decodeTracesJson(json));
  const [resource] = fromProto;
  t.is(resource!.resource.get('service.name'), 'unit');
  const server = resource!.spans.find((s) => s.kind === 2)!;
  t.is(server.attributes.get('ratio'), 0.5);
  t.is(server.attributes.get('below'), -5);
  t.is(server.attributes.get('large'), 2 ** 50);
  t.is(server.attributes.get('flag'), true);
  t.is(server.attributes.get('list'), null);
  t.is(server.exceptionMessage, 'not found');
  t.is(server.statusCode, 2);
  const mapped = mapTraces(fromProto, DEFAULT_OTLP_SETTINGS);
  t.deepEqual([...mapped.skipped], [['not_server', 1]]);
  t.deepEqual(mapped.rejected, []);
  t.like(mapped.events[0]!.input, {
    method: 'GET',
    path: '/a/:id',
    status_code: 404,
    identifier: 'anonymous',
    service_name: 'unit',
    environment: 'development',
    ip: '::1',
    user_agent: 'ua',
    query_params: { q: '1' },
    error_message: 'not found',
    request_id: server.traceId,
  });
  t.is(mapped.events[0]!.idempotencyKey, `otlp-${server.traceId}-${server.spanId}`);
});

test('an ERROR span with neither a message nor an exception event says its error.type', (t) => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('unit');
  const span = (status: SpanStatusCode) => {
    const server = tracer.startSpan('POST /b', { kind: SpanKind.SERVER });
    server.setAttributes({ 'http.request.method': 'POST', 'http.route': '/b', 'error.type': 'RuntimeError' });
    server.setStatus({ code: status });
    server.end();
  };
  span(SpanStatusCode.ERROR);
  span(SpanStatusCode.UNSET);
  const decoded = decodeTracesProto(
    Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!),
  );
  const [failed, unset] = mapTraces(decoded, DEFAULT_OTLP_SETTINGS).events;
  t.is(failed!.input.error_message, 'RuntimeError');
  t.is(unset!.input.error_message, undefined, 'error.type alone, without an ERROR status, is no error message');
});

test('long values are cut as the SDKs cut them, never inside a surrogate pair; a long ip is left out', (t) => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': `s${'v'.repeat(300)}` }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const server = provider.getTracer('unit').startSpan('GET', { kind: SpanKind.SERVER });
  const route = `/${'r'.repeat(253)}😀tail`;
  server.setAttributes({
    'http.request.method': 'GET',
    'http.route': route,
    'enduser.id': `u${'x'.repeat(200)}`,
    'session.id': 's'.repeat(300),
    'client.address': '1'.repeat(65),
  });
  server.end();
  const decoded = decodeTracesProto(
    Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!),
  );
  const mapped = mapTraces(decoded, DEFAULT_OTLP_SETTINGS);
  t.deepEqual(mapped.rejected, []);
  const input = mapped.events[0]!.input;
  t.is(input.path, route.slice(0, 254), 'the emoji would straddle 255: left out whole');
  t.is(input.identifier, `u${'x'.repeat(99)}`);
  t.is(input.service_name.length, 255);
  t.is(input.session_id, 's'.repeat(255));
  t.is(input.ip, undefined);
});

test('any bytes decode, or fail with a path: never another exception', (t) => {
  const valid = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans())!);
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.tuple(fc.nat(valid.length), fc.nat(255)).map(([at, byte]) => {
          const copy = Buffer.from(valid);
          copy[at] = byte;
          return copy;
        }),
        fc.nat(valid.length).map((end) => valid.subarray(0, end)),
      ),
      (bytes) => {
        try {
          decodeTracesProto(Buffer.from(bytes));
        } catch (error) {
          return error instanceof OtlpDecodeError && error.path.length > 0;
        }
        return true;
      },
    ),
  );
  t.pass();
});

test('any JSON decodes, or fails with a path', (t) => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      try {
        decodeTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] });
        decodeTracesJson(value);
      } catch (error) {
        return error instanceof OtlpDecodeError;
      }
      return true;
    }),
  );
  t.pass();
});

test('__proto__ and constructor are read as the client sent them, and only as its own keys', (t) => {
  const body = JSON.parse(
    '{"__proto__": {"resourceSpans": [{}]}, "resourceSpans": [{"resource": {"attributes": ' +
      '[{"key": "__proto__", "value": {"stringValue": "x"}}]}, "constructor": 1}]}',
  );
  const [decoded] = decodeTracesJson(body);
  t.is(decoded!.resource.get('__proto__'), 'x');
  t.deepEqual(decodeTracesJson(JSON.parse('{"__proto__": {"resourceSpans": [{}]}}')), []);
});

test('environments map by name, the rest to the default; query strings as URLSearchParams reads them', (t) => {
  t.is(environmentOf('PROD', 'staging'), 'production');
  t.is(environmentOf('stage', 'production'), 'staging');
  t.is(environmentOf('local', 'production'), 'development');
  t.is(environmentOf('qa', 'staging'), 'staging');
  t.is(environmentOf('constructor', 'staging'), 'staging');
  t.is(environmentOf(undefined, 'development'), 'development');
  t.deepEqual(queryParamsOf('a=1&a=2&b=&c=3'), { a: ['1', '2'], b: '', c: '3' });
  t.is(queryParamsOf(''), undefined);
});

test('the answer: empty when every span was taken, else partial_success', (t) => {
  t.is(encodeTracesResponseProto(null).length, 0);
  const encoded = encodeTracesResponseProto({ rejectedSpans: 300, errorMessage: 'spans.1 bad' });
  t.deepEqual(ProtobufTraceSerializer.deserializeResponse(new Uint8Array(encoded)), {
    partialSuccess: { rejectedSpans: 300, errorMessage: 'spans.1 bad' },
  } as never);
});
