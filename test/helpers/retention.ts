import type { RecordedEvent } from '../../src/log/event-log.ts';
import { auditStream } from '../../src/domain/streams.ts';
import { api, type TestServer } from './server.ts';

/** Traffic for the retention and erasure tests, and what of it the log holds. */

export interface Sent {
  id: string;
  identifier: string;
  browser: boolean;
}

export const send = async (url: string, apiKey: string, events: Array<Record<string, unknown>>): Promise<Sent[]> => {
  const sent: Sent[] = [];
  for (const body of events) {
    const res = await api(url, 'POST', '/v1/audit', { apiKey, body });
    if (res.status !== 202) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
    sent.push({ id: res.body.id as string, identifier: body.identifier as string, browser: body.source === 'browser' });
  }
  return sent;
};

/** The project's audit records in the log, in log order. */
export const auditRecords = async (server: TestServer, projectId: string): Promise<RecordedEvent[]> =>
  (await server.runtime.log.readAll(null, 1_000_000)).filter((r) => r.stream === auditStream(projectId));
