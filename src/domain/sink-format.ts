import type { StoredAuditEvent } from './audit-event.ts';
import type { SinkTarget } from './sink.ts';

/** What each sink type sends, pure: the request body of a batch, and what an answer says was
 *  taken. The event's id is in every record (the destination's deduplication key). */

/** A record to forward: the audit record, where it is in the log, and when it was logged. */
export interface SinkRecord {
  readonly position: string;
  readonly record: StoredAuditEvent;
}

/** The record as every sink sends it: the audit record (its `id` the deduplication key) and its
 *  log position (its order). */
export const sinkDocument = (r: SinkRecord): Record<string, unknown> => ({ ...r.record, log_position: r.position });

export const ndjsonBody = (records: readonly SinkRecord[]): string =>
  records.map((r) => `${JSON.stringify(sinkDocument(r))}\n`).join('');

type Target<K extends SinkTarget['type']> = Extract<SinkTarget, { type: K }>;

/** Splunk HEC's event endpoint takes events one after another in one body. */
export const splunkBody = (target: Target<'splunk_hec'>, records: readonly SinkRecord[]): string =>
  records
    .map((r) =>
      JSON.stringify({
        time: Date.parse(r.record.timestamp) / 1000,
        source: target.source ?? 'watchlog',
        sourcetype: target.sourcetype ?? 'watchlog:audit',
        ...(target.index === undefined ? {} : { index: target.index }),
        fields: { event_id: r.record.id, project_id: r.record.project_id },
        event: sinkDocument(r),
      }),
    )
    .join('\n');

/** `create` with the event id as `_id`: a record sent again is a 409 the sink counts as taken (a
 *  data stream accepts `create` only). */
export const elasticBody = (target: Target<'elastic'>, records: readonly SinkRecord[]): string =>
  records
    .map(
      (r) =>
        `${JSON.stringify({ create: { _index: target.index, _id: r.record.id } })}\n${JSON.stringify({
          '@timestamp': r.record.timestamp,
          ...sinkDocument(r),
        })}\n`,
    )
    .join('');

/** How many records, from the first, a `_bulk` answer took (created, or already there); the
 *  first refused item's error when it refused one. Items after a refused one are sent again with
 *  it, so that what a destination holds is never a record without all those before it. */
export const elasticTaken = (answer: unknown, sent: number): { taken: number; error: string | null } => {
  const items = (answer as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length !== sent)
    return { taken: 0, error: `the _bulk answer has ${Array.isArray(items) ? items.length : 'no'} items for ${sent}` };
  for (let i = 0; i < items.length; i += 1) {
    const item = Object.values((items[i] ?? {}) as Record<string, { status?: unknown; error?: unknown }>)[0];
    const status = typeof item?.status === 'number' ? item.status : 0;
    if ((status >= 200 && status < 300) || status === 409) continue;
    const reason = (item?.error as { reason?: unknown } | undefined)?.reason;
    return { taken: i, error: `item ${i} refused with ${status}${typeof reason === 'string' ? `: ${reason}` : ''}` };
  }
  return { taken: sent, error: null };
};

export const datadogBody = (target: Target<'datadog'>, records: readonly SinkRecord[]): string =>
  JSON.stringify(
    records.map((r) => ({
      ddsource: 'watchlog',
      ddtags: ['source:watchlog', `event_type:${r.record.event_type}`, ...(target.tags ?? [])].join(','),
      hostname: 'watchlog',
      service: target.service ?? r.record.service_name,
      message: JSON.stringify(sinkDocument(r)),
      event_id: r.record.id,
    })),
  );

/** OpenTelemetry's severity numbers: 5xx ERROR, 4xx WARN, else INFO. */
const severityOf = (r: StoredAuditEvent): { number: number; text: string } =>
  (r.status_code ?? 0) >= 500
    ? { number: 17, text: 'ERROR' }
    : (r.status_code ?? 0) >= 400
      ? { number: 13, text: 'WARN' }
      : { number: 9, text: 'INFO' };

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** OTLP/HTTP JSON: a resource per run of records of one service (so that reading the request in
 *  order is reading the log in order); `log.record.uid` is the event id (semantic conventions),
 *  the body the record as JSON. */
export const otlpLogsBody = (records: readonly SinkRecord[]): string => {
  const runs: Array<[string, SinkRecord[]]> = [];
  for (const r of records) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === r.record.service_name) last[1].push(r);
    else runs.push([r.record.service_name, [r]]);
  }
  return JSON.stringify({
    resourceLogs: runs.map(([service, list]) => ({
      resource: {
        attributes: [str('service.name', service), str('deployment.environment', list[0]!.record.environment)],
      },
      scopeLogs: [
        {
          scope: { name: 'watchlog' },
          logRecords: list.map((r) => {
            const severity = severityOf(r.record);
            return {
              timeUnixNano: `${BigInt(Date.parse(r.record.timestamp)) * 1_000_000n}`,
              severityNumber: severity.number,
              severityText: severity.text,
              body: { stringValue: JSON.stringify(sinkDocument(r)) },
              attributes: [
                str('log.record.uid', r.record.id),
                str('watchlog.event_type', r.record.event_type),
                str('watchlog.project_id', r.record.project_id),
                str('watchlog.log_position', r.position),
              ],
            };
          }),
        },
      ],
    })),
  });
};

/** RFC 5424 facility 13, "log audit"; severity 3 (error) for 5xx, 4 (warning) for 4xx, else 6. */
const syslogPri = (r: StoredAuditEvent) =>
  13 * 8 + ((r.status_code ?? 0) >= 500 ? 3 : (r.status_code ?? 0) >= 400 ? 4 : 6);

/** A PARAM-VALUE with `"`, `\` and `]` escaped (RFC 5424, 6.3.3). */
const paramValue = (s: string) => s.replace(/[\\"\]]/g, (c) => `\\${c}`);
/** PRINTUSASCII without spaces, at most `max` characters, or the NILVALUE. */
const header = (s: string, max: number) => s.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';

/** 32473 is the private enterprise number RFC 5612 reserves for documentation. */
export const SYSLOG_SD_ID = 'watchlog@32473';

/** One RFC 5424 message, octet-counted for TCP (RFC 6587, 3.4.1): `MSG-LEN SP SYSLOG-MSG`; the
 *  MSG is the record as JSON, in UTF-8 with its BOM. */
export const syslogFrame = (appName: string, hostname: string, r: SinkRecord): Buffer => {
  const rec = r.record;
  const sd =
    `[${SYSLOG_SD_ID} event_id="${paramValue(rec.id)}" project_id="${paramValue(rec.project_id)}" ` +
    `log_position="${paramValue(r.position)}"]`;
  const head = `<${syslogPri(rec)}>1 ${rec.timestamp} ${header(hostname, 255)} ${header(appName, 48)} - ${header(
    rec.event_type,
    32,
  )} ${sd} `;
  const message = Buffer.concat([
    Buffer.from(head, 'utf8'),
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(JSON.stringify(sinkDocument(r)), 'utf8'),
  ]);
  return Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
};
