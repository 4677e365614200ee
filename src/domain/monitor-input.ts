import * as t from 'io-ts';
import { boundedString, closed, intRange, Uuid } from './codecs.ts';
import { withSchema } from './json-schema.ts';
import { MAX_INTERVAL_SECONDS, MAX_TIMEOUT_SECONDS, MIN_INTERVAL_SECONDS, isHttpUrl } from './monitor.ts';
import { optionCodecs } from './monitor-options.ts';

/** The bodies of POST and PUT /v1/monitors. */

/** The target of http and tcp monitors: http(s)://… or tcp://host:port. */
export const CheckUrl = withSchema(
  new t.Type<string, string, unknown>(
    'an http, https or tcp URL of at most 2048 characters',
    (u): u is string => typeof u === 'string' && isCheckUrl(u),
    (u, c) => (typeof u === 'string' && isCheckUrl(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', format: 'uri', maxLength: 2048 },
);

function isCheckUrl(s: string): boolean {
  if (isHttpUrl(s)) return true;
  if (s.length > 2048) return false;
  try {
    return new URL(s).protocol === 'tcp:';
  } catch {
    return false;
  }
}

const settings = {
  name: boundedString(1, 255),
  url: CheckUrl,
  interval_seconds: intRange(MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS),
  timeout_seconds: intRange(1, MAX_TIMEOUT_SECONDS),
  expected_status: intRange(100, 599),
  enabled: t.boolean,
};

const createShape = closed(
  t.exact(
    t.intersection([
      t.type({ project_id: Uuid, name: settings.name }),
      t.partial({
        url: settings.url,
        interval_seconds: settings.interval_seconds,
        timeout_seconds: settings.timeout_seconds,
        expected_status: settings.expected_status,
        enabled: settings.enabled,
        ...optionCodecs,
      }),
    ]),
  ),
  'field',
  'a monitor',
);

/** Create and update bodies: unknown fields are refused (a misspelt setting is a 400, not a
 *  default silently applied). `url` is required of http (the default) and tcp monitors, and
 *  reported with the body's other faults. */
export const MonitorCreateInput = Object.assign(
  new t.Type<t.TypeOf<typeof createShape>, t.OutputOf<typeof createShape>, unknown>(
    createShape.name,
    createShape.is,
    (u, c) => {
      const result = createShape.validate(u, c);
      const record = typeof u === 'object' && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : null;
      const wantsUrl =
        record !== null && record.url === undefined && [undefined, 'http', 'tcp'].includes(record.type as string);
      if (!wantsUrl) return result;
      const missing: t.ValidationError = {
        value: undefined,
        context: [...c, { key: 'url', type: CheckUrl, actual: undefined }],
      };
      return t.failures(result._tag === 'Left' ? [...result.left, missing] : [missing]);
    },
    createShape.encode,
  ),
  { _tag: 'ClosedType' as const, type: createShape.type },
);
export type MonitorCreateInput = t.TypeOf<typeof MonitorCreateInput>;

/** An option set to null goes back to its default (or away, for those without one). */
const { type: _type, ...changeableOptions } = optionCodecs;
const nullableOptions = Object.fromEntries(
  Object.entries(changeableOptions).map(([k, codec]) => [k, t.union([codec, t.null], codec.name)]),
) as { [K in keyof typeof changeableOptions]: t.UnionC<[(typeof changeableOptions)[K], t.NullC]> };

export const MonitorUpdateInput = closed(
  t.exact(t.partial({ ...settings, type: optionCodecs.type, ...nullableOptions })),
  'field',
  'a monitor update',
);
export type MonitorUpdateInput = t.TypeOf<typeof MonitorUpdateInput>;
