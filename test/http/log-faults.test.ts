import test from 'ava';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { api, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

test(
  'ingest while the log writer thread dies: ' +
    '202 or 503 with Retry-After and a clear code, never 500; then 202 again',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    if (!(server.runtime.log instanceof SqliteEventLog)) return t.pass('the KurrentDB log has no writer thread');
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    const ingest = () => api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() });
    const during = Array.from({ length: 200 }, ingest);
    await new Promise((r) => setTimeout(r, 5));
    await server.runtime.log.writerThread!.terminate();
    const answers = await Promise.all([...during, ...Array.from({ length: 50 }, ingest)]);
    t.deepEqual(
      [...new Set(answers.map((a) => a.status))].filter((s) => s !== 202 && s !== 503),
      [],
    );
    for (const refused of answers.filter((a) => a.status === 503)) {
      t.is(refused.headers.get('retry-after'), '1');
      t.true(['outcome_unknown', 'log_unavailable'].includes(refused.body.error.code), refused.body.error.code);
    }
    t.is((await ingest()).status, 202, 'the writer thread was restarted');
  },
);
