import * as t from 'io-ts';
import { boundedString, discriminated, intRange, ManagedBy } from './codecs.ts';
import { withSchema } from './json-schema.ts';

/** What a monitor may check beyond SPEC 2.8's GET and status: its kind, the HTTP request,
 *  assertions on what came back, confirmation counts and certificate warnings. Every field is
 *  optional; a monitor without them is SPEC's. Pure: the probes are in src/checks/. */

export const MonitorType = t.keyof(
  { http: null, tcp: null, dns: null, heartbeat: null },
  'http | tcp | dns | heartbeat',
);
export type MonitorType = t.TypeOf<typeof MonitorType>;

export const CheckMethod = t.keyof(
  { GET: null, HEAD: null, POST: null, PUT: null, PATCH: null, DELETE: null, OPTIONS: null },
  'GET | HEAD | POST | PUT | PATCH | DELETE | OPTIONS',
);

export const DnsRecordType = t.keyof({ A: null, AAAA: null, CNAME: null, MX: null, TXT: null, NS: null });
export type DnsRecordType = t.TypeOf<typeof DnsRecordType>;

const pattern = (name: string, re: RegExp, schema: Record<string, unknown>) =>
  withSchema(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string' && re.test(u),
      (u, c) => (typeof u === 'string' && re.test(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', pattern: re.source, ...schema },
  );

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the check itself sets from other fields or the connection. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade']);
export const MAX_HEADERS = 30;

/** Header names as HTTP tokens; values without line breaks. */
export const CheckHeaders = withSchema(
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    `an object of at most ${MAX_HEADERS} header names (HTTP tokens, not Host, Content-Length, ` +
      'Transfer-Encoding, Connection or Upgrade) to values of at most 4096 characters without line breaks',
    (u): u is Record<string, string> => headersValid(u),
    (u, c) => (headersValid(u) ? t.success({ ...u }) : t.failure(u, c)),
    t.identity,
  ),
  {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 4096 },
  },
);

function headersValid(u: unknown): u is Record<string, string> {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return false;
  const entries = Object.entries(u);
  return (
    entries.length <= MAX_HEADERS &&
    entries.every(
      ([k, v]) =>
        TOKEN.test(k) &&
        !RESERVED_HEADERS.has(k.toLowerCase()) &&
        typeof v === 'string' &&
        v.length <= 4096 &&
        !/[\r\n\0]/.test(v),
    )
  );
}

export const CheckAuth = discriminated(
  'type',
  {
    basic: t.exact(
      t.type({
        type: t.literal('basic'),
        username: pattern('a user name of at most 255 characters, without ":"', /^[^:\r\n]{0,255}$/, {}),
        password: boundedString(0, 1024),
      }),
    ),
    bearer: t.exact(t.type({ type: t.literal('bearer'), token: boundedString(1, 4096) })),
  },
  'basic (username, password) or bearer (token) credentials',
);
export type CheckAuth = t.TypeOf<typeof CheckAuth>;

/** "200", or an inclusive range "200-299". */
export const StatusRange = pattern('a status code or a range of them such as "200-299"', /^[1-5]\d\d(-[1-5]\d\d)?$/, {
  examples: ['200-299', '301'],
});
export const AcceptedStatuses = withSchema(
  new t.Type<string[], string[], unknown>(
    'a list of 1 to 20 status codes or ranges such as "200-299"',
    (u): u is string[] => Array.isArray(u) && u.length >= 1 && u.length <= 20 && u.every(StatusRange.is),
    (u, c) => {
      if (!Array.isArray(u) || u.length < 1 || u.length > 20) return t.failure(u, c);
      const bad = u.findIndex((s) => !(StatusRange.is(s) && rangeOf(s)[0] <= rangeOf(s)[1]));
      return bad === -1
        ? t.success([...u] as string[])
        : t.failure(u[bad], [...c, { key: String(bad), type: StatusRange, actual: u[bad] }]);
    },
    t.identity,
  ),
  { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string', pattern: '^[1-5]\\d\\d(-[1-5]\\d\\d)?$' } },
);

const rangeOf = (s: string): [number, number] => {
  const [from, to = from] = s.split('-').map(Number) as [number, number?];
  return [from, to ?? from];
};

/** Whether `status` is one of the accepted codes or ranges. */
export const statusAccepted = (accepted: readonly string[], status: number): boolean =>
  accepted.some((s) => {
    const [from, to] = rangeOf(s);
    return status >= from && status <= to;
  });

/** `host:port` or `[v6]:port` or an address alone (port 53): where DNS questions go. */
export const ResolverAddress = pattern(
  'an IP address, optionally with a port ("1.1.1.1", "127.0.0.1:5353", "[::1]:53")',
  /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]+)$/,
  {},
);

/** A DNS name to resolve: letters, digits, hyphens, underscores and dots, at most 253. */
export const DnsName = pattern(
  'a host name of at most 253 characters',
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/,
  {},
);

export const AssertionSource = t.keyof(
  {
    status: null,
    body: null,
    json: null,
    header: null,
    response_time: null,
    certificate_expiry_days: null,
    dns_records: null,
  },
  'status | body | json | header | response_time | certificate_expiry_days | dns_records',
);
export type AssertionSource = t.TypeOf<typeof AssertionSource>;

export const AssertionOp = t.keyof(
  {
    equals: null,
    not_equals: null,
    contains: null,
    not_contains: null,
    matches: null,
    lt: null,
    lte: null,
    gt: null,
    gte: null,
    exists: null,
    not_exists: null,
  },
  'equals | not_equals | contains | not_contains | matches | lt | lte | gt | gte | exists | not_exists',
);
export type AssertionOp = t.TypeOf<typeof AssertionOp>;

/** `value` is compared as written: numbers for the numeric operators, text otherwise (a JSON value
 *  is compared by its JSON text when it is not a string). */
export const Assertion = t.exact(
  t.intersection([
    t.type({ source: AssertionSource, op: AssertionOp }),
    t.partial({
      path: boundedString(1, 255),
      value: t.union([boundedString(0, 1024), t.number, t.boolean, t.null]),
    }),
  ]),
);
export type Assertion = t.TypeOf<typeof Assertion>;
export const MAX_ASSERTIONS = 20;

/** Defaults of the options: what SPEC 2.8's monitor does. */
export const OPTION_DEFAULTS = {
  type: 'http',
  method: 'GET',
  max_redirects: 0,
  ignore_tls_errors: false,
  down_after: 1,
  up_after: 1,
  cert_expiry_warn_days: [14, 7, 1],
  grace_seconds: 60,
  record_type: 'A',
} as const;

export const MAX_REDIRECTS = 10;
export const MAX_CONFIRMATIONS = 10;
export const MIN_RETRY_INTERVAL_SECONDS = 5;

export const optionCodecs = {
  type: MonitorType,
  method: CheckMethod,
  headers: CheckHeaders,
  body: boundedString(0, 65_536),
  content_type: pattern('a media type such as "application/json"', /^[\w.+-]+\/[\w.+-]+(\s*;[^\r\n]{0,200})?$/, {}),
  auth: CheckAuth,
  max_redirects: intRange(0, MAX_REDIRECTS),
  ignore_tls_errors: t.boolean,
  accepted_statuses: AcceptedStatuses,
  tls: t.boolean,
  hostname: DnsName,
  record_type: DnsRecordType,
  resolver: ResolverAddress,
  grace_seconds: intRange(0, 86_400),
  assertions: withSchema(
    new t.Type<Assertion[], Assertion[], unknown>(
      `a list of at most ${MAX_ASSERTIONS} assertions`,
      (u): u is Assertion[] => Array.isArray(u) && u.length <= MAX_ASSERTIONS && u.every(Assertion.is),
      (u, c) => {
        if (!Array.isArray(u) || u.length > MAX_ASSERTIONS) return t.failure(u, c);
        return t.array(Assertion).validate(u, c);
      },
      t.identity,
    ),
    {
      type: 'array',
      maxItems: MAX_ASSERTIONS,
      items: {
        type: 'object',
        required: ['source', 'op'],
        properties: {
          source: { enum: Object.keys(AssertionSource.keys) },
          op: { enum: Object.keys(AssertionOp.keys) },
          path: { type: 'string', minLength: 1, maxLength: 255 },
          value: {
            anyOf: [{ type: 'string', maxLength: 1024 }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
          },
        },
        additionalProperties: false,
      },
    },
  ),
  down_after: intRange(1, MAX_CONFIRMATIONS),
  up_after: intRange(1, MAX_CONFIRMATIONS),
  /** Its badges (/badge/:id/…) are public, whether or not a published status page shows it. */
  public_badges: t.boolean,
  retry_interval_seconds: intRange(MIN_RETRY_INTERVAL_SECONDS, 3600),
  managed_by: ManagedBy,
  cert_expiry_warn_days: withSchema(
    new t.Type<number[], number[], unknown>(
      'a list of at most 5 whole numbers of days from 1 to 365',
      (u): u is number[] => warnDaysValid(u),
      (u, c) => (warnDaysValid(u) ? t.success([...new Set(u)].sort((a, b) => b - a)) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'array', maxItems: 5, items: { type: 'integer', minimum: 1, maximum: 365 } },
  ),
};

function warnDaysValid(u: unknown): u is number[] {
  return Array.isArray(u) && u.length <= 5 && u.every((d) => Number.isInteger(d) && d >= 1 && d <= 365);
}

export const MonitorOptions = t.partial(optionCodecs);
export type MonitorOptions = t.TypeOf<typeof MonitorOptions>;

/** The options as events and read models keep them (written by the codecs above, so read back as
 *  plain shapes). */
export const StoredOptions = t.partial({
  type: MonitorType,
  method: t.string,
  headers: t.record(t.string, t.string),
  body: t.string,
  content_type: t.string,
  auth: t.union([
    t.type({ type: t.literal('basic'), username: t.string, password: t.string }),
    t.type({ type: t.literal('bearer'), token: t.string }),
  ]),
  max_redirects: t.number,
  ignore_tls_errors: t.boolean,
  accepted_statuses: t.array(t.string),
  tls: t.boolean,
  hostname: t.string,
  record_type: DnsRecordType,
  resolver: t.string,
  grace_seconds: t.number,
  assertions: t.array(
    t.intersection([
      t.type({ source: AssertionSource, op: AssertionOp }),
      t.partial({ path: t.string, value: t.union([t.string, t.number, t.boolean, t.null]) }),
    ]),
  ),
  down_after: t.number,
  up_after: t.number,
  public_badges: t.boolean,
  retry_interval_seconds: t.number,
  managed_by: t.string,
  cert_expiry_warn_days: t.array(t.number),
});
export type StoredOptions = t.TypeOf<typeof StoredOptions>;
export const OPTION_KEYS = Object.keys(optionCodecs) as Array<keyof MonitorOptions>;

/** What answers show of a secret. A PUT that sends it back keeps the stored secret. */
export const SECRET_MASK = '********';

/** The options with header values and credentials replaced by SECRET_MASK. */
export const maskedOptions = <O extends StoredOptions>(options: O): O => {
  const out = { ...options };
  if (out.headers) out.headers = Object.fromEntries(Object.keys(out.headers).map((k) => [k, SECRET_MASK]));
  if (out.auth?.type === 'basic') out.auth = { ...out.auth, password: SECRET_MASK };
  else if (out.auth?.type === 'bearer') out.auth = { ...out.auth, token: SECRET_MASK };
  return out;
};

/** A change whose secrets are SECRET_MASK keeps the stored ones (the dashboard sends back what it
 *  was shown); a header named anew with the mask has no stored value and is refused by the caller. */
export const unmaskedChanges = <O extends StoredOptions>(changes: O, stored: StoredOptions): O => {
  const out = { ...changes };
  if (out.headers) {
    const before = stored.headers ?? {};
    const lower = new Map(Object.entries(before).map(([k, v]) => [k.toLowerCase(), v]));
    out.headers = Object.fromEntries(
      Object.entries(out.headers).map(([k, v]) => [k, v === SECRET_MASK ? (lower.get(k.toLowerCase()) ?? v) : v]),
    );
  }
  if (out.auth?.type === 'basic' && out.auth.password === SECRET_MASK && stored.auth?.type === 'basic')
    out.auth = { ...out.auth, password: stored.auth.password };
  if (out.auth?.type === 'bearer' && out.auth.token === SECRET_MASK && stored.auth?.type === 'bearer')
    out.auth = { ...out.auth, token: stored.auth.token };
  return out;
};
