import net from 'node:net';
import { hostname } from 'node:os';
import tls from 'node:tls';
import type { EgressPolicy } from '../../checks/egress.ts';
import { signBody } from '../../domain/notification.ts';
import type { SinkTarget } from '../../domain/sink.ts';
import {
  datadogBody,
  elasticBody,
  elasticTaken,
  ndjsonBody,
  otlpLogsBody,
  splunkBody,
  syslogFrame,
  type SinkRecord,
} from '../../domain/sink-format.ts';
import { clipped, egressPost, errorAnswer } from '../notifications/answer.ts';

/** One try at a batch: how many of its records, from the first, the destination took (all of
 *  them, or none, but for Elastic's per-item answers), and why not all. */
export interface SendOutcome {
  taken: number;
  error: string | null;
}

export interface SendOptions {
  egress: EgressPolicy;
  timeoutMs: number;
}

const all = (records: readonly SinkRecord[]): SendOutcome => ({ taken: records.length, error: null });

/** One POST through the egress policy, never retried or redirected here. */
const postBody = async (
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<{ status: number; body: string } | { error: string }> => {
  try {
    const res = await egressPost(url, body, headers, options);
    return { status: res.statusCode, body: res.body };
  } catch (error) {
    return { error: errorAnswer(error).error ?? String(error) };
  }
};

const wholeBatch = async (
  records: readonly SinkRecord[],
  answer: Promise<{ status: number; body: string } | { error: string }>,
): Promise<SendOutcome> => {
  const a = await answer;
  if ('error' in a) return { taken: 0, error: a.error };
  if (a.status >= 200 && a.status < 300) return all(records);
  const said = clipped(a.body);
  return { taken: 0, error: `answered ${a.status}${said === null ? '' : `: ${said}`}` };
};

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

const elastic = async (
  target: Extract<SinkTarget, { type: 'elastic' }>,
  records: readonly SinkRecord[],
  options: SendOptions,
): Promise<SendOutcome> => {
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
  if (target.api_key !== undefined) headers.authorization = `ApiKey ${target.api_key}`;
  else if (target.username !== undefined) headers.authorization = basic(target.username, target.password ?? '');
  const a = await postBody(`${target.url.replace(/\/+$/, '')}/_bulk`, elasticBody(target, records), headers, options);
  if ('error' in a) return { taken: 0, error: a.error };
  if (a.status < 200 || a.status >= 300) return wholeBatch(records, Promise.resolve(a));
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.body);
  } catch {
    return { taken: 0, error: 'the _bulk answer is not JSON' };
  }
  return elasticTaken(parsed, records.length);
};

/** Frames written on one connection, ended: TCP syslog has no acknowledgement, so a batch counts
 *  as taken once every byte was handed to the connection and it closed without an error. */
const syslog = async (
  target: Extract<SinkTarget, { type: 'syslog' }>,
  records: readonly SinkRecord[],
  options: SendOptions,
): Promise<SendOutcome> => {
  const me = hostname();
  const frames = Buffer.concat(records.map((r) => syslogFrame(target.app_name, me, r)));
  try {
    const address = await options.egress.destination(target.host);
    await new Promise<void>((resolve, reject) => {
      const socket = target.tls
        ? tls.connect({
            host: address,
            port: target.port,
            servername: net.isIP(target.host) === 0 ? target.host : undefined,
            rejectUnauthorized: target.reject_unauthorized,
            ...(target.ca === undefined ? {} : { ca: target.ca }),
          })
        : net.connect({ host: address, port: target.port });
      const timer = setTimeout(
        () => socket.destroy(new Error(`no answer in ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once(target.tls ? 'secureConnect' : 'connect', () => {
        socket.end(frames, () => {
          clearTimeout(timer);
          socket.destroy();
          resolve();
        });
      });
    });
    return all(records);
  } catch (error) {
    return { taken: 0, error: errorAnswer(error).error ?? String(error) };
  }
};

/** Sends one batch to the sink's destination, once. */
export const sendBatch = (
  sinkId: string,
  target: SinkTarget,
  records: readonly SinkRecord[],
  options: SendOptions,
): Promise<SendOutcome> => {
  switch (target.type) {
    case 'http': {
      const body = ndjsonBody(records);
      const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'x-watchlog-sink': sinkId };
      if (target.secret) headers['x-watchlog-signature'] = signBody(target.secret, body);
      return wholeBatch(records, postBody(target.url, body, headers, options));
    }
    case 'splunk_hec':
      return wholeBatch(
        records,
        postBody(
          target.url,
          splunkBody(target, records),
          { 'content-type': 'application/json', authorization: `Splunk ${target.token}` },
          options,
        ),
      );
    case 'elastic':
      return elastic(target, records, options);
    case 'datadog':
      return wholeBatch(
        records,
        postBody(
          target.url,
          datadogBody(target, records),
          { 'content-type': 'application/json', 'dd-api-key': target.api_key },
          options,
        ),
      );
    case 'otlp_logs':
      return wholeBatch(
        records,
        postBody(target.url, otlpLogsBody(records), { ...target.headers, 'content-type': 'application/json' }, options),
      );
    case 'syslog':
      return syslog(target, records, options);
  }
};
