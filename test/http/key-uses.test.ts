import test from 'ava';
import pino from 'pino';
import { KEY_USE_INTERVAL_MS, KeyUses } from '../../src/http/middleware/key-uses.ts';
import type { ActiveKey } from '../../src/views/access/port.ts';

const key = (id: string, last_used_at: string | null = null): ActiveKey => ({
  id,
  project_id: 'p',
  scopes: ['ingest'],
  expires_at: null,
  allowed_origins: [],
  rate_limit: null,
  last_used_at,
});

const setUp = (fail: () => boolean = () => false) => {
  let now = Date.parse('2026-11-02T10:00:00.000Z');
  const records: Array<{ id: string; at: string; capped: boolean }> = [];
  const uses = new KeyUses(
    async (k, at, _correlationId, capped) => {
      if (fail()) throw new Error('log unavailable');
      records.push({ id: k.id, at: at.toISOString(), capped });
    },
    () => new Date(now),
    pino({ level: 'silent' }),
  );
  const settle = () => new Promise((r) => setImmediate(r));
  return { uses, records, settle, tick: (ms: number) => (now += ms) };
};

test('a key is recorded at most once a minute; each key on its own; its maxCount is set once', async (t) => {
  const { uses, records, settle, tick } = setUp();
  uses.used(key('a'), 'r1');
  uses.used(key('a'), 'r2');
  uses.used(key('b'), 'r3');
  await settle();
  tick(KEY_USE_INTERVAL_MS - 1);
  uses.used(key('a'), 'r4');
  await settle();
  t.deepEqual(
    records.map((r) => [r.id, r.capped]),
    [
      ['a', false],
      ['b', false],
    ],
  );
  tick(1);
  uses.used(key('a'), 'r5');
  await settle();
  t.deepEqual(records.at(-1), { id: 'a', at: '2026-11-02T10:01:00.000Z', capped: true });
});

test("a use within a minute of the key's last_used_at (another process's) is not recorded", async (t) => {
  const { uses, records, settle } = setUp();
  uses.used(key('a', '2026-11-02T09:59:30.000Z'), 'r1');
  uses.used(key('b', '2026-11-02T09:58:00.000Z'), 'r2');
  await settle();
  t.deepEqual(
    records.map((r) => r.id),
    ['b'],
  );
});

test('a record that fails fails no request, and the next use tries again', async (t) => {
  let failing = true;
  const { uses, records, settle } = setUp(() => failing);
  t.notThrows(() => uses.used(key('a'), 'r1'));
  await settle();
  t.deepEqual(records, []);
  failing = false;
  uses.used(key('a'), 'r2');
  await settle();
  t.deepEqual(
    records.map((r) => [r.id, r.capped]),
    [['a', false]],
  );
});
