import { randomUUID } from 'node:crypto';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, leafBytes, leafHash } from '../../../src/domain/merkle.ts';
import { WrongExpectedRevisionError } from '../../../src/log/event-log.ts';
import { event, type WithLog } from './harness.ts';

export const appendsContract = (withLog: WithLog): void => {
  withLog('appends and reads a stream in revision order, from a revision', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    const first = await log.append(stream, [event(), event()], 'no_stream');
    t.is(first.revision, 1);
    const second = await log.append(stream, [event('ApiKeyIssued', { k: 'v' })], 1);
    t.is(second.revision, 2);
    t.true(BigInt(second.position) > BigInt(first.position));
    const read = await log.readStream(stream);
    t.deepEqual(
      read.map((e) => e.revision),
      [0, 1, 2],
    );
    t.deepEqual(read[2]!.data, { k: 'v' });
    t.is(read[2]!.type, 'ApiKeyIssued');
    t.is(read[2]!.metadata.actor, 'test');
    t.deepEqual(
      (await log.readStream(stream, { fromRevision: 1, maxCount: 1 })).map((e) => e.revision),
      [1],
    );
    t.deepEqual(await log.readStream(`missing-${randomUUID()}`), []);
  });

  withLog('enforces expected revisions with a typed error', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    await t.throwsAsync(log.append(stream, [event()], 0), { instanceOf: WrongExpectedRevisionError });
    await log.append(stream, [event()], 'no_stream');
    const dup = await t.throwsAsync(log.append(stream, [event()], 'no_stream'), {
      instanceOf: WrongExpectedRevisionError,
    });
    t.is(dup?.stream, stream);
    await t.throwsAsync(log.append(stream, [event()], 5), { instanceOf: WrongExpectedRevisionError });
    await log.append(stream, [event()], 0);
    await log.append(stream, [event()], 'any');
    t.is((await log.readStream(stream)).length, 3);
  });

  withLog(
    'concurrent appends: one winner per expected revision, and failures do not affect others',
    async (t, { log }) => {
      const stream = `s-${randomUUID()}`;
      await log.append(stream, [event()], 'no_stream');
      const other = `o-${randomUUID()}`;
      const results = await Promise.allSettled([
        log.append(stream, [event()], 0),
        log.append(stream, [event()], 0),
        log.append(other, [event()], 'any'),
        log.append(stream, [event()], 0),
      ]);
      t.is(results.filter((r) => r.status === 'fulfilled').length, 2);
      t.is(results[2]!.status, 'fulfilled');
      t.is(results.filter((r) => r.status === 'rejected' && r.reason instanceof WrongExpectedRevisionError).length, 2);
      t.is((await log.readStream(stream)).length, 2);
    },
  );

  withLog('many concurrent "any" appends get distinct, dense revisions', async (t, { log }) => {
    const stream = `s-${randomUUID()}`;
    await Promise.all(Array.from({ length: 200 }, () => log.append(stream, [event()], 'any')));
    const revisions = (await log.readStream(stream)).map((e) => e.revision);
    t.deepEqual(
      revisions,
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  withLog('reads all in position order from a position, and knows its head', async (t, { log }) => {
    const before = await log.headPosition();
    const a = await log.append(`a-${randomUUID()}`, [event()], 'any');
    const b = await log.append(`b-${randomUUID()}`, [event(), event()], 'any');
    t.is(await log.headPosition(), b.position);
    const all = await log.readAll(before, 100);
    t.is(all.length, 3);
    t.is(all[0]!.position, a.position);
    t.is(all[2]!.position, b.position);
    const positions = all.map((e) => BigInt(e.position));
    t.deepEqual(
      [...positions].sort((x, y) => (x < y ? -1 : 1)),
      positions,
    );
    t.is((await log.readAll(a.position, 100)).length, 2);
    t.is((await log.readAll(before, 1)).length, 1);
  });

  withLog(
    'readPositions: the events at the positions asked, in position order, without those that are not there',
    async (t, { log }) => {
      const stream = `by-position-${randomUUID()}`;
      await log.append(stream, [event('A'), event('B'), event('C'), event('D')], 'any');
      const all = await log.readStream(stream);
      const [a, , c, d] = all;
      const found = await log.readPositions([
        d!.position,
        a!.position,
        c!.position,
        String(BigInt(d!.position) + 1000000n),
      ]);
      t.deepEqual(
        found.map((e) => e.type),
        ['A', 'C', 'D'],
      );
      t.deepEqual(
        found.map((e) => e.data),
        [a!.data, c!.data, d!.data],
      );
      t.deepEqual(await log.readPositions([]), []);
    },
  );

  // The tree of a project must be the same on every log (docs/auditors.md): what a log gives back
  // must hash as what was appended, whatever it does to key order or numbers.
  withLog(
    'leaf bytes survive the log: the tree of the events read back is the tree of the events appended',
    async (t, { log }) => {
      const before = await log.headPosition();
      const stream = `audit-leaves-${randomUUID()}`;
      const appended = [
        event('AuditEventRecorded', {
          z: 1,
          a: { y: [1, 2.5, -0, 1e21, 'é\u2028"\\'], x: null },
          big: 9007199254740991,
          small: 1e-7,
        }),
        event(
          'AuditEventRecorded',
          JSON.parse('{"nested": {"__proto__": {"polluted": true}, "key with space": true, "emoji": "🙂"}}'),
        ),
        event('MonitorCreated', { empty: {}, list: [], t: true, f: false }),
      ];
      await log.append(stream, appended, 'any');
      const back = (await log.readAll(before, 1000)).filter((e) => e.stream === stream);
      const rootOf = (
        records: ReadonlyArray<{ id: string; type: string; data: unknown; metadata: unknown; revision: number }>,
      ) =>
        frontierRoot(
          records.reduce(
            (f, r) =>
              appendLeaf(
                f,
                leafHash(
                  leafBytes({
                    id: r.id,
                    type: r.type,
                    data: r.data,
                    metadata: r.metadata,
                    revision: r.revision,
                    stream,
                  }),
                ),
              ).frontier,
            EMPTY_FRONTIER,
          ),
        ).toString('hex');
      t.is(rootOf(back), rootOf(appended.map((e, revision) => ({ ...e, revision }))));
    },
  );

  withLog('appended events survive a reopen', async (t, fixture) => {
    if (!fixture.reopen) {
      t.pass('adapter has no local reopen');
      return;
    }
    const stream = `s-${randomUUID()}`;
    await fixture.log.append(stream, [event('ProjectCreated', { durable: true })], 'no_stream');
    await fixture.log.close();
    const reopened = await fixture.reopen();
    fixture.log = reopened;
    t.deepEqual(
      (await reopened.readStream(stream)).map((e) => e.data),
      [{ durable: true }],
    );
  });
};
