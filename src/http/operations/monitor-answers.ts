import * as t from 'io-ts';
import { intRange, Uuid } from '../../domain/codecs.ts';
import {
  MAX_INTERVAL_SECONDS,
  MAX_TIMEOUT_SECONDS,
  MIN_INTERVAL_SECONDS,
  MonitorStatus,
} from '../../domain/monitor.ts';
import { AssertionOp, AssertionSource, MonitorType, optionCodecs } from '../../domain/monitor-options.ts';
import type { CheckView, MonitorResponse } from '../../views/monitors/port.ts';
import { Count, Fraction, nullable, type SameFields, text, Timestamp } from './answers.ts';

/** The monitors' answers: a monitor, a check. */

const CertificateAnswer = t.type({
  valid_from: Timestamp,
  valid_to: Timestamp,
  issuer: t.string,
  subject: t.string,
  names: t.array(t.string),
});
export const Check = t.intersection([
  t.type({
    checked_at: Timestamp,
    status_code: nullable(intRange(100, 599)),
    response_ms: Count,
    ok: t.boolean,
    error: nullable(t.string),
  }),
  t.partial({
    assertions: t.array(
      t.intersection([
        t.type({ source: AssertionSource, op: AssertionOp, passed: t.boolean, received: nullable(t.string) }),
        t.partial({ path: t.string, value: t.union([t.string, t.number, t.boolean, t.null]) }),
      ]),
    ),
    certificate: CertificateAnswer,
    dns_records: t.array(t.string),
    heartbeat: t.keyof({ beat: null, missed: null }),
    // A maintenance window covered the monitor: the check is left out of uptime.
    in_maintenance: t.literal(true),
  }),
]);
const { type: _type, ...answeredOptions } = optionCodecs;
/** Header values, passwords and tokens are answered as `********` (a PUT that sends that back keeps them). */
export const Monitor = t.intersection([
  t.type({
    id: Uuid,
    project_id: Uuid,
    name: t.string,
    type: MonitorType,
    url: text('http and tcp: the URL checked; dns: dns://resolver/name?type=A; heartbeat: heartbeat:<id>', {
      format: 'uri',
    }),
    interval_seconds: intRange(MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS),
    timeout_seconds: intRange(1, MAX_TIMEOUT_SECONDS),
    expected_status: intRange(100, 599),
    enabled: t.boolean,
    status: MonitorStatus,
    status_since: nullable(Timestamp),
    last_checked_at: nullable(Timestamp),
    last_status_code: nullable(intRange(100, 599)),
    last_response_ms: nullable(Count),
    last_error: nullable(t.string),
    last_certificate: nullable(CertificateAnswer),
    created_at: Timestamp,
    updated_at: Timestamp,
    uptime_24h: nullable(Fraction),
    uptime_7d: nullable(Fraction),
    uptime_30d: nullable(Fraction),
    uptime_90d: nullable(Fraction),
    avg_response_ms_24h: nullable(Count),
    avg_response_ms_7d: nullable(Count),
    avg_response_ms_30d: nullable(Count),
    avg_response_ms_90d: nullable(Count),
    // An open maintenance window covers it now (docs/monitors.md#maintenance-windows).
    in_maintenance: t.boolean,
  }),
  t.partial(answeredOptions),
]);
/** A new heartbeat monitor's token and URL are answered here only, once. */
export const CreatedMonitor = t.intersection([
  Monitor,
  t.partial({
    heartbeat_token: text('the heartbeat token: shown once, never again'),
    heartbeat_url: text('where the job sends its beats (GET or POST)', { format: 'uri' }),
  }),
]);

true satisfies SameFields<typeof Check, CheckView>;
true satisfies SameFields<typeof Monitor, MonitorResponse>;
