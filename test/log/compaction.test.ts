import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { NewEvent, RecordedEvent } from '../../src/log/event-log.ts';
import type { CompactionOptions } from '../../src/log/sqlite/compaction.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { auditKeyStream, auditStream, streamFamily } from '../../src/domain/streams.ts';
import { tempDir } from '../helpers/server.ts';

const SMALL: CompactionOptions = { keepRecent: 10, window: 64, blockRecords: 16, familyOf: streamFamily };

const open = (t: ExecutionContext, compaction: CompactionOptions = SMALL) => {
  const dir = tempDir();
  const file = path.join(dir, 'log.db');
  const handles: SqliteEventLog[] = [];
  const another = () => {
    const log = new SqliteEventLog(file, { compaction });
    handles.push(log);
    return log;
  };
  t.teardown(async () => {
    for (const log of handles) await log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { file, log: another(), another };
};

const event = (n: number, extra: Record<string, unknown> = {}): NewEvent => ({
  id: randomUUID(),
  type: 'AuditEventRecorded',
  data: {
    id: randomUUID(),
    path: `/orders/${n}`,
    method: 'GET',
    status_code: 200,
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36',
    n,
    ...extra,
  },
  metadata: {
    recorded_at: new Date(Date.UTC(2026, 10, 25, 0, 0, n)).toISOString(),
    actor: 'system:test',
    correlation_id: `c-${n}`,
    schema_version: 1,
  },
});

/** Everything a reader can see of a record. */
const seen = (records: readonly RecordedEvent[]) =>
  records.map((r) => ({
    position: r.position,
    stream: r.stream,
    revision: r.revision,
    id: r.id,
    type: r.type,
    data: r.data,
    metadata: r.metadata,
    text: r.text,
  }));

const readEverything = async (log: SqliteEventLog) => seen(await log.readAll(null, 100_000));

const rows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return {
      compressed: db
        .prepare<[], { position: number }>(
          "SELECT position FROM events WHERE block IS NOT NULL AND data = '' ORDER BY position",
        )
        .all()
        .map((r) => r.position),
      inline: db
        .prepare<[], { position: number }>('SELECT position FROM events WHERE block IS NULL ORDER BY position')
        .all()
        .map((r) => r.position),
      blocks: db
        .prepare<[], { body: Buffer }>('SELECT body FROM blocks')
        .all()
        .map((b) => inflateRawSync(b.body).toString('utf8')),
      liveBytes: (db.prepare('SELECT sum(pgsize) AS bytes FROM dbstat').get() as { bytes: number }).bytes,
    };
  } finally {
    db.close();
  }
};

const fill = async (log: SqliteEventLog, projects: readonly string[], count: number) => {
  for (let n = 0; n < count; n++) {
    const project = projects[n % projects.length]!;
    // Every fifth with an idempotency key: a stream of its own, in its project's family.
    if (n % 5 === 4)
      await log.appendOnce([{ stream: auditKeyStream(project, `key-${n}`), event: event(n) }], 86_400_000);
    else await log.append(auditStream(project), [event(n)], 'any');
  }
};

test(
  'compaction compresses all but the recent tail, ' + 'and every read gives back exactly what it gave before',
  async (t) => {
    const { file, log, another } = open(t);
    const projects = [randomUUID(), randomUUID(), randomUUID()];
    await fill(log, projects, 200);
    const before = await readEverything(log);
    const streams = await Promise.all(projects.map((p) => log.readStream(auditStream(p))));
    const positions = ['3', '50', '120', '199', '200'];
    const picked = await log.readPositions(positions);
    const sizeBefore = rows(file).liveBytes;

    const done = await log.compact();
    t.is(done.records, 200 - SMALL.keepRecent!);
    t.true(done.bytesOut * 3 < done.bytesIn, `${done.bytesIn} → ${done.bytesOut}`);
    const after = rows(file);
    t.deepEqual(
      after.compressed,
      before.slice(0, 190).map((r) => Number(r.position)),
    );
    t.deepEqual(
      after.inline,
      before.slice(190).map((r) => Number(r.position)),
    );
    // Windows of 64 positions, at most 16 records a block, a project's keyed events with its own.
    t.true(
      after.blocks.length >= Math.ceil(190 / 16) && after.blocks.length <= 3 * Math.ceil(64 / 16) * 3 + 3,
      `${after.blocks.length} blocks`,
    );
    t.true(after.liveBytes < sizeBefore, `${sizeBefore} → ${after.liveBytes} bytes`);

    for (const reader of [log, another()]) {
      t.deepEqual(await readEverything(reader), before);
      t.deepEqual(seen(await reader.readAll('57', 20)), before.slice(57, 77));
      for (const [i, p] of projects.entries())
        t.deepEqual(seen(await reader.readStream(auditStream(p))), seen(streams[i]!));
      t.deepEqual(seen(await reader.readPositions(positions)), seen(picked));
    }
    t.deepEqual(
      await log.compact(),
      { records: 0, blocks: 0, bytesIn: 0, bytesOut: 0 },
      'a second run finds nothing to do',
    );
  },
);

test('compaction resumes where it stopped, and leaves capped streams and hand-written rows alone', async (t) => {
  const { file, log } = open(t);
  await log.setStreamMaxCount('capped', 1000);
  for (let n = 0; n < 40; n++) await log.append(n % 4 === 0 ? 'capped' : 'plain', [event(n)], 'any');
  const db = new Database(file);
  db.prepare('UPDATE events SET data = ? WHERE position = 2').run('{"note":"a\u0001b"}');
  db.close();
  t.is((await log.compact()).records, 40 - 10 - 8 - 1);
  for (let n = 40; n < 80; n++) await log.append('plain', [event(n)], 'any');
  // Positions 31–70: the ten the first run left as the tail, thirty of the new; two are capped.
  t.is((await log.compact()).records, 38);
  const capped = [1, 5, 9, 13, 17, 21, 25, 29, 33, 37];
  const tail = Array.from({ length: 10 }, (_, i) => 71 + i);
  t.deepEqual(rows(file).inline, [1, 2, ...capped.slice(1), ...tail]);
  t.is((await log.readPositions(['2']))[0]!.text!.data, '{"note":"a\u0001b"}');
});

test(
  'a redaction of compressed records writes their block again: ' +
    'the old payload leaves the file, other readers see it at once',
  async (t) => {
    const { file, log, another } = open(t);
    const project = randomUUID();
    for (let n = 0; n < 60; n++)
      await log.append(
        auditStream(project),
        [event(n, n === 7 ? { user_email: 'secret.person@example.com' } : {})],
        'any',
      );
    await log.compact();
    const reader = another();
    const [target] = await reader.readPositions(['8']);
    t.is(
      (target!.data as { user_email: string }).user_email,
      'secret.person@example.com',
      'the reader has the block cached',
    );
    t.true(rows(file).blocks.some((b) => b.includes('secret.person@example.com')));

    const others = (await log.readAll(null, 1000)).filter((r) => r.position !== '8');
    t.is(
      await log.redact([{ position: '8', type: 'RecordRedacted', data: { leaf: 'h' }, metadata: target!.metadata }]),
      1,
    );

    t.false(
      rows(file).blocks.some((b) => b.includes('secret.person@example.com')),
      'no block holds the old payload',
    );
    for (const handle of [log, reader]) {
      const [redacted] = await handle.readPositions(['8']);
      t.is(redacted!.type, 'RecordRedacted');
      t.deepEqual(redacted!.data, { leaf: 'h' });
      t.is(redacted!.id, target!.id);
      t.deepEqual(seen((await handle.readAll(null, 1000)).filter((r) => r.position !== '8')), seen(others));
    }
  },
);

test(
  'a redaction made while compaction deflates wins: ' + 'compaction gives up the window and does it again next time',
  async (t) => {
    const { file, log } = open(t);
    for (let n = 0; n < 40; n++)
      await log.append('s', [event(n, n === 3 ? { user_email: 'erase.me@example.com' } : {})], 'any');
    const [record] = await log.readPositions(['4']);
    const compacting = log.compact();
    // compact() read its rows before its first await; the redaction commits before it writes.
    await log.redact([{ position: '4', type: 'RecordRedacted', data: { leaf: 'x' }, metadata: record!.metadata }]);
    const first = await compacting;
    t.true(first.records < 30, `${first.records} compressed`);
    t.is((await log.compact()).records + first.records, 30);
    t.deepEqual((await log.readPositions(['4']))[0]!.data, { leaf: 'x' });
    t.false(rows(file).blocks.some((b) => b.includes('erase.me@example.com')));
  },
);

test('appendOnce finds the first event of a key in its block', async (t) => {
  const { log } = open(t);
  const project = randomUUID();
  const first = event(1);
  const [stored] = await log.appendOnce([{ stream: auditKeyStream(project, 'k'), event: first }], 86_400_000);
  for (let n = 2; n < 40; n++) await log.append(auditStream(project), [event(n)], 'any');
  t.true((await log.compact()).records > 0);
  const [again] = await log.appendOnce([{ stream: auditKeyStream(project, 'k'), event: event(1) }], 86_400_000);
  t.deepEqual(again, { replay: true, id: first.id, position: stored!.position, metadata: first.metadata });
  t.is((await log.readStream(auditKeyStream(project, 'k'))).length, 1);
});

test('a log made before compressed blocks existed opens, reads and compacts', async (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'log.db');
  const old = new Database(file);
  old.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL,
    revision INTEGER NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
    UNIQUE (stream, revision));
    CREATE TABLE stream_settings (stream TEXT PRIMARY KEY, max_count INTEGER NOT NULL);`);
  const insert = old.prepare(
    'INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (let n = 0; n < 30; n++) {
    const e = event(n);
    insert.run('s', n, e.id, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
  }
  old.close();
  const log = new SqliteEventLog(file, { compaction: SMALL });
  t.teardown(() => log.close());
  const before = await readEverything(log);
  t.is(before.length, 30);
  t.is((await log.compact()).records, 20);
  t.deepEqual(await readEverything(log), before);
});
