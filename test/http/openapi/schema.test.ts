import test, { type ExecutionContext } from 'ava';
import * as io from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import {
  boundedString,
  closed,
  discriminated,
  intRange,
  IsoTimestamp,
  JsonObject,
  Uuid,
} from '../../../src/domain/codecs.ts';
import { withSchema, type JsonSchema } from '../../../src/domain/json-schema.ts';
import { AuditEventInput } from '../../../src/domain/audit-event.ts';
import { AnomalySettingsPatch } from '../../../src/domain/anomaly-settings.ts';
import { ApiKeyRestrictions } from '../../../src/domain/api-keys.ts';
import { MonitorCreateInput } from '../../../src/domain/monitor-input.ts';
import { jsonSchemaOf, type SchemaOptions } from '../../../src/http/openapi/schema.ts';

/** The codec walker: what each io-ts combinator becomes, and, for the API's own request codecs,
 *  that the schema accepts exactly what the codec decodes (checked with Ajv on sample values). */

const addFormats = ajvFormats.default;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

/** The schema and the codec agree on each value: valid for one exactly when valid for the other. */
const agrees = (t: ExecutionContext, codec: io.Mixed, values: readonly unknown[], options: SchemaOptions = {}) => {
  const validate = ajv.compile(jsonSchemaOf(codec, options));
  for (const value of values)
    t.is(validate(value), isRight(codec.decode(value)), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
};

test('primitives, literals, keyofs, arrays and tuples', (t) => {
  t.deepEqual(jsonSchemaOf(io.string), { type: 'string' });
  t.deepEqual(jsonSchemaOf(io.number), { type: 'number' });
  t.deepEqual(jsonSchemaOf(io.boolean), { type: 'boolean' });
  t.deepEqual(jsonSchemaOf(io.null), { type: 'null' });
  t.deepEqual(jsonSchemaOf(io.unknown), {});
  t.deepEqual(jsonSchemaOf(io.UnknownRecord), { type: 'object' });
  t.deepEqual(jsonSchemaOf(io.UnknownArray), { type: 'array' });
  t.deepEqual(jsonSchemaOf(io.Int), { type: 'integer' });
  t.deepEqual(jsonSchemaOf(io.literal('webhook')), { type: 'string', const: 'webhook' });
  t.deepEqual(jsonSchemaOf(io.literal(3)), { type: 'integer', const: 3 });
  t.deepEqual(jsonSchemaOf(io.keyof({ asc: null, desc: null })), { type: 'string', enum: ['asc', 'desc'] });
  t.deepEqual(jsonSchemaOf(io.array(io.string)), { type: 'array', items: { type: 'string' } });
  t.deepEqual(jsonSchemaOf(io.readonlyArray(io.boolean)), { type: 'array', items: { type: 'boolean' } });
  t.deepEqual(jsonSchemaOf(io.tuple([io.string, io.number])), {
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'number' }],
    minItems: 2,
    maxItems: 2,
  });
});

test(
  'objects: t.type requires its keys, t.partial none; ' +
    'closed codecs refuse other keys, at every depth they reach; others leave them open',
  (t) => {
    const codec = io.type({ a: io.string, b: io.union([io.number, io.undefined]) });
    t.deepEqual(jsonSchemaOf(codec), {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
    });
    t.deepEqual(jsonSchemaOf(io.partial({ a: io.string })), { type: 'object', properties: { a: { type: 'string' } } });
    t.deepEqual(jsonSchemaOf(closed(io.type({ a: io.string }))), {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    });
    t.deepEqual(jsonSchemaOf(io.exact(io.type({ a: io.string }))), {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
    t.deepEqual(jsonSchemaOf(io.readonly(io.type({ a: io.string }))), jsonSchemaOf(io.type({ a: io.string })));
    t.deepEqual(
      jsonSchemaOf(closed(io.type({ a: closed(io.partial({ b: io.string })), c: io.type({ d: io.string }) }))),
      {
        type: 'object',
        additionalProperties: false,
        required: ['a', 'c'],
        properties: {
          a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false },
          c: { type: 'object', properties: { d: { type: 'string' } }, required: ['d'] },
        },
      },
    );
    t.deepEqual(jsonSchemaOf(io.record(io.string, io.number)), {
      type: 'object',
      additionalProperties: { type: 'number' },
    });
    t.deepEqual(jsonSchemaOf(io.record(io.keyof({ x: null, y: null }), io.number)), {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' } },
      required: ['x', 'y'],
    });
  },
);

test(
  "intersections merge into one object, so that closing it refuses no member's keys; " +
    'a union in one is distributed',
  (t) => {
    t.deepEqual(jsonSchemaOf(io.intersection([io.type({ a: io.string }), io.partial({ b: io.number })])), {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
    });
    const merged = jsonSchemaOf(closed(io.intersection([io.type({ a: io.string }), io.partial({ b: io.number })])));
    t.deepEqual(merged, {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    });
    const validate = ajv.compile(merged);
    t.true(validate({ a: 'x', b: 1 }));
    t.false(validate({ a: 'x', c: 1 }));

    const distributed = jsonSchemaOf(
      closed(
        io.intersection([
          io.type({ id: io.string }),
          io.union([io.type({ kind: io.literal('a') }), io.type({ kind: io.literal('b'), n: io.number })]),
        ]),
      ),
    );
    t.is(distributed.anyOf?.length, 2);
    const either = ajv.compile(distributed);
    t.true(either({ id: '1', kind: 'a' }));
    t.true(either({ id: '1', kind: 'b', n: 2 }));
    t.false(either({ id: '1', kind: 'a', n: 2 }));
  },
);

test(
  'unions: literals become an enum, a value or null a nullable type, ' +
    'objects an anyOf; discriminated codecs a oneOf',
  (t) => {
    t.deepEqual(jsonSchemaOf(io.union([io.literal('a'), io.literal('b'), io.null])), {
      type: ['string', 'null'],
      enum: ['a', 'b', null],
    });
    t.deepEqual(jsonSchemaOf(io.union([boundedString(1, 5), io.null])), {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 5,
      description: 'a string of 1 to 5 characters',
    });
    t.deepEqual(jsonSchemaOf(io.union([io.type({ a: io.string }), io.type({ b: io.string })])).anyOf?.length, 2);
    const channel = jsonSchemaOf(
      discriminated(
        'type',
        {
          a: closed(io.type({ type: io.literal('a'), url: io.string })),
          b: closed(io.type({ type: io.literal('b') })),
        },
        'a channel',
      ),
    );
    t.is(channel.oneOf?.length, 2);
    t.deepEqual(channel.oneOf?.[1], {
      type: 'object',
      properties: { type: { type: 'string', const: 'b' } },
      required: ['type'],
      additionalProperties: false,
    });
  },
);

test(
  'codecs of our own carry their rule as a note; ' +
    'one without a note, a refinement without one, or an unnamed recursion is refused',
  (t) => {
    t.deepEqual(jsonSchemaOf(intRange(10, 86_400)), {
      type: 'integer',
      minimum: 10,
      maximum: 86_400,
      description: 'an integer from 10 to 86400',
    });
    t.deepEqual(jsonSchemaOf(intRange(0, Number.MAX_SAFE_INTEGER)), {
      type: 'integer',
      minimum: 0,
      description: 'an integer of at least 0',
    });
    t.deepEqual(jsonSchemaOf(Uuid), { type: 'string', format: 'uuid', description: 'a UUID' });
    t.like(jsonSchemaOf(IsoTimestamp), { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}' });
    t.deepEqual(jsonSchemaOf(JsonObject), { type: 'object', description: 'a JSON object' });
    const origins = jsonSchemaOf(ApiKeyRestrictions);
    t.like(origins.properties?.allowed_origins, { type: 'array', maxItems: 20 });
    t.like(origins.properties?.allowed_origins?.items, { type: 'string' });

    const bare = new io.Type<string, string, unknown>(
      'a colour',
      (u): u is string => typeof u === 'string',
      (u, c) => (typeof u === 'string' ? io.success(u) : io.failure(u, c)),
      io.identity,
    );
    t.throws(() => jsonSchemaOf(io.type({ colour: bare })), { message: /a colour .* withSchema\(\)/ });
    t.throws(
      () =>
        jsonSchemaOf(
          io.brand(
            io.string,
            (s): s is io.Branded<string, { readonly Odd: unique symbol }> => s.length % 2 === 1,
            'Odd',
          ),
        ),
      { message: /withSchema/ },
    );
    const noted = withSchema(
      io.brand(io.number, (n): n is io.Branded<number, { readonly Even: unique symbol }> => n % 2 === 0, 'Even'),
      { multipleOf: 2 },
      io.number,
    );
    t.deepEqual(jsonSchemaOf(noted), { type: 'number', multipleOf: 2, description: 'Even' });
    t.throws(() => withSchema(io.string, { format: 'email' }), { message: /describes itself/ });

    interface Tree {
      name: string;
      children: Tree[];
    }
    const TreeCodec: io.Type<Tree> = io.recursion('Tree', () =>
      io.type({ name: io.string, children: io.array(TreeCodec) }),
    );
    t.throws(() => jsonSchemaOf(TreeCodec), { message: /must be named/ });
    const named = new Map<io.Mixed, string>([[TreeCodec, 'Tree']]);
    t.deepEqual(jsonSchemaOf(TreeCodec, { named }), { $ref: '#/components/schemas/Tree' });
    t.deepEqual(jsonSchemaOf(TreeCodec, { named }, true), {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
      },
      required: ['name', 'children'],
    });
  },
);

test("the API's request codecs and their schemas accept the same values", (t) => {
  const event = { path: '/login', method: 'POST', identifier: 'u1', service_name: 'api', environment: 'production' };
  agrees(t, AuditEventInput, [
    event,
    { ...event, status_code: 200, response_time: 0, user_roles: ['a'], request_body: {}, session_id: null, extra: 1 },
    { ...event, method: 'PATCH' },
    { ...event, path: '' },
    { ...event, path: 'x'.repeat(256) },
    { ...event, status_code: 99 },
    { ...event, status_code: 200.5 },
    { ...event, identifier: 'x'.repeat(101) },
    { ...event, request_body: [] },
    { ...event, user_roles: [1] },
    { path: '/x' },
    [],
    null,
  ]);
  const monitor = {
    project_id: '7b1e4c1e-5a47-4c8e-9c43-4c35b1f0a001',
    name: 'api',
    url: 'https://example.com/health',
  };
  agrees(t, MonitorCreateInput, [
    monitor,
    { ...monitor, interval_seconds: 10, timeout_seconds: 10, expected_status: 204, enabled: false },
    { ...monitor, interval_seconds: 9 },
    { ...monitor, interval_seconds: 86_401 },
    { ...monitor, timeout_seconds: 0 },
    { ...monitor, project_id: 'x' },
    { ...monitor, url: 'not a url' },
    { ...monitor, name: '' },
    { ...monitor, colour: 'red' },
    { name: 'api' },
  ]);
  agrees(t, AnomalySettingsPatch, [
    {},
    { brute_force: { threshold: 5, window_secs: 60 } },
    { brute_force: { threshold: null } },
    { error_rate: { threshold_percent: 99.5 } },
    { brute_force: { window_secs: 15 } },
    { brute_force: { threshold: 0 } },
    { error_rate: { threshold_percent: 0 } },
    { volume_spike: { z_threshold: 101 } },
    { brute_force: { treshold: 5 } },
    { storm: {} },
  ]);
  agrees(t, ApiKeyRestrictions, [
    {},
    { allowed_origins: ['https://app.example.com', 'http://localhost:5173'], rate_limit: null },
    { rate_limit: 10 },
    { allowed_origins: ['https://app.example.com/path'] },
    { allowed_origins: Array.from({ length: 21 }, (_, i) => `https://a${i}.example.com`) },
    { rate_limit: 0 },
  ]);
});

test("a schema refers to a named codec, except the named codec's own definition", (t) => {
  const Item = io.type({ id: io.string });
  const named = new Map<io.Mixed, string>([[Item, 'Item']]);
  t.deepEqual(jsonSchemaOf(io.array(Item), { named }), {
    type: 'array',
    items: { $ref: '#/components/schemas/Item' },
  } as JsonSchema);
  t.deepEqual(jsonSchemaOf(Item, { named }, true), jsonSchemaOf(Item));
  // An intersection describes its members in place: their keys merge into one object.
  t.deepEqual(jsonSchemaOf(io.intersection([Item, io.type({ open: io.boolean })]), { named }).required, ['id', 'open']);
});
