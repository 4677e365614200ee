import test from 'ava';
import { Readable } from 'node:stream';
import { leafBytes, leafHash } from '../../src/domain/merkle.ts';
import type { Checkpoint } from '../../src/verify/note.ts';
import { verifyStream, type StreamOptions, type StreamResult } from '../../src/verify/stream.ts';
import { ORIGIN, buildLog, makeRecord, missingLine, streamLine } from './fixtures.ts';

/** Streams made by the server's tree, then tampered with the ways an operator could: each must be
 *  reported as the right kind of failure, at the right leaf, whether the lines are checked in
 *  this thread or in worker threads. */

const LOG = buildLog(200);
const checkpoint = (size: number): Checkpoint => ({ origin: ORIGIN, size, root: LOG.roots[size]! });
const CHECKPOINTS = [checkpoint(64), checkpoint(1), checkpoint(137), checkpoint(200)];

/** The text as a file stream gives it: chunks that do not end at line ends. */
const chunked = (text: string) =>
  Readable.from(Array.from({ length: Math.ceil(text.length / 1500) }, (_, i) => text.slice(i * 1500, (i + 1) * 1500)));

const scenarios = (name: string, options: Omit<StreamOptions, 'allowMissing'>) => {
  const named = (title: string) => `${name}: ${title}`;
  const run = (lines: readonly string[], checkpoints = CHECKPOINTS, allowMissing = false): Promise<StreamResult> =>
    verifyStream(chunked(`${lines.join('\n')}\n`), checkpoints, { ...options, allowMissing });

  const failure = async (lines: readonly string[], checkpoints = CHECKPOINTS) => {
    const result = await run(lines, checkpoints);
    if (result.ok) throw new Error('the stream verified');
    return result.failure;
  };

  test(named("the server's stream verifies against every checkpoint, each root named at its size"), async (t) => {
    const result = await run(LOG.lines, [...CHECKPOINTS, checkpoint(0)]);
    if (!result.ok) return t.fail(result.failure.message);
    t.is(result.report.leaves, 200);
    t.deepEqual(
      result.report.verified.map((v) => v.size),
      [0, 1, 64, 137, 200],
    );
    t.deepEqual(result.report.verified.at(-1)!.root, LOG.roots[200]);
  });

  test(named('records past the last checkpoint are read and checked against their own hashes'), async (t) => {
    const result = await run(LOG.lines, [checkpoint(150)]);
    t.true(result.ok && result.report.leaves === 200);
    const edited = [...LOG.lines];
    edited[180] = edited[180]!.replace('checkout-api', 'checkout-apI');
    t.like(await failure(edited, [checkpoint(150)]), { kind: 'edited', index: 180 });
  });

  test(named("one byte edited in a record's data: edited, naming the leaf, its line, position and id"), async (t) => {
    const lines = [...LOG.lines];
    lines[57] = lines[57]!.replace('/api/orders/57', '/api/orders/58');
    const f = await failure(lines);
    t.like(f, { kind: 'edited', index: 57, line: 58 });
    t.regex(
      f.message,
      /^leaf 57 \(line 58, position 271, id evt-57\) was edited: its fields hash to \S+, the tree holds \S+$/,
    );
  });

  test(named('a deleted line: deleted, naming the leaf'), async (t) => {
    const lines = LOG.lines.filter((_, i) => i !== 80);
    const f = await failure(lines);
    t.like(f, { kind: 'deleted', index: 80, line: 81 });
    t.regex(f.message, /leaf 80 was deleted: line 81 holds leaf 81 right after leaf 79/);
  });

  test(named('two lines swapped: reordered, naming the leaf that comes late'), async (t) => {
    const lines = [...LOG.lines];
    [lines[90], lines[91]] = [lines[91]!, lines[90]!];
    const f = await failure(lines);
    t.like(f, { kind: 'reordered', index: 90, line: 92 });
    t.regex(f.message, /leaf 90 was reordered: line 91 holds leaf 91 where leaf 90 belongs/);
  });

  test(named('a line repeated: reordered'), async (t) => {
    const lines = [...LOG.lines.slice(0, 31), LOG.lines[30]!, ...LOG.lines.slice(31)];
    t.like(await failure(lines), { kind: 'reordered', index: 30, line: 32 });
  });

  test(
    named('a truncated tail: truncated, naming the first missing leaf and the checkpoint that needs it'),
    async (t) => {
      const f = await failure(LOG.lines.slice(0, 150));
      t.like(f, { kind: 'truncated', index: 150 });
      t.regex(f.message, /ends after 150 leaves, and the checkpoint of size 200 needs leaves 150 to 199/);
      t.like(await failure([]), { kind: 'truncated', index: 0 });
    },
  );

  test(
    named("a record edited and its leaf hash recomputed: the stored tree was altered, between two checkpoints' sizes"),
    async (t) => {
      const lines = [...LOG.lines];
      const r = {
        ...makeRecord(100),
        data: { ...(makeRecord(100).data as Record<string, unknown>), status_code: 204 },
      };
      lines[100] = streamLine(100, r, leafHash(leafBytes(r)));
      const f = await failure(lines);
      t.like(f, { kind: 'altered', index: null });
      t.regex(
        f.message,
        new RegExp(
          'stored tree itself was altered, between sizes 64 and 137 ' +
            '\\(the first 64 leaves match the checkpoint of size 64\\)',
        ),
      );
      t.regex((await failure(lines, [checkpoint(200)])).message, /between sizes 0 and 200/);
    },
  );

  test(named('a missing-record line: missing by default, accepted by its leaf hash with allowMissing'), async (t) => {
    const lines = [...LOG.lines];
    lines[33] = missingLine(33, LOG.records[33]!, LOG.leaves[33]!);
    const f = await failure(lines);
    t.like(f, { kind: 'missing', index: 33, line: 34 });
    t.regex(f.message, /leaf 33 \(line 34, position 199\) is missing/);
    const allowed = await run(lines, CHECKPOINTS, true);
    t.true(allowed.ok && allowed.report.missing === 1 && allowed.report.verified.length === 4);
    // Its hash still counts: a missing line with another hash does not give the signed root.
    lines[33] = missingLine(33, LOG.records[33]!, LOG.leaves[34]!);
    const forged = await run(lines, CHECKPOINTS, true);
    t.true(!forged.ok && forged.failure.kind === 'altered');
  });

  test(named('a stream that does not start at leaf 0, and lines that are not records'), async (t) => {
    t.like(await failure(LOG.lines.slice(5)), { kind: 'deleted', index: 0 });
    const notJson = [...LOG.lines];
    notJson[3] = '{"leaf_index":3,';
    t.like(await failure(notJson), { kind: 'malformed', index: 3, line: 4 });
    const noIndex = [...LOG.lines];
    noIndex[4] = '{"id":"x"}';
    t.like(await failure(noIndex), { kind: 'malformed', index: 4, line: 5 });
  });

  test(named("blank lines and Windows line ends are read as the server's lines"), async (t) => {
    const result = await verifyStream(chunked(`${LOG.lines.slice(0, 64).join('\r\n')}\r\n\r\n`), [checkpoint(64)], {
      ...options,
      allowMissing: false,
    });
    t.true(result.ok);
  });

  // Chunks of 1 to 3,000 bytes, cut anywhere (inside a character of several bytes, between "\r"
  // and "\n"), into batches shorter than a line: every line is split across chunks and batches.
  const inPieces = (lines: readonly string[], end: string, seed: number) => {
    const bytes = Buffer.from(lines.join(end));
    const pieces: Buffer[] = [];
    for (let at = 0, n = seed; at < bytes.length; n = (n * 7919 + 13) % 3001) {
      pieces.push(bytes.subarray(at, at + 1 + n));
      at += 1 + n;
    }
    return Readable.from(pieces);
  };
  const inSmallBatches = {
    ...options,
    ...(options.threads === 0 ? {} : { inThreadBytes: 2_000 }),
    batchBytes: 500,
    allowMissing: false,
  };

  test(
    named(`lines split across chunks and batches anywhere, with "\\r\\n" or "\\n", the last without one`),
    async (t) => {
      for (const [end, seed] of [
        ['\n', 1],
        ['\r\n', 2],
        ['\n', 2999],
        ['\r\n', 77],
      ] as const) {
        const result = await verifyStream(inPieces(LOG.lines, end, seed), CHECKPOINTS, inSmallBatches);
        if (!result.ok) return t.fail(`${JSON.stringify(end)}, ${seed}: ${result.failure.message}`);
        t.is(result.report.leaves, 200);
      }
      const lastEdited = [...LOG.lines];
      lastEdited[199] = lastEdited[199]!.replace('checkout-api', 'checkout-apI');
      const result = await verifyStream(inPieces(lastEdited, '\r\n', 5), CHECKPOINTS, inSmallBatches);
      t.like(result, { ok: false, failure: { kind: 'edited', index: 199, line: 200 } });
    },
  );

  test(
    named(
      'lines written otherwise than the server writes them (spaces, escapes) ' +
        'are read the slow way, and checked as well',
    ),
    async (t) => {
      const spaced = (line: string) =>
        JSON.stringify(JSON.parse(line), null, 1).replace(/\n */g, ' ').replaceAll('/', '\\/');
      const lines = LOG.lines.map((line, i) => (i % 3 === 0 ? spaced(line) : line));
      const result = await run(lines);
      if (!result.ok) return t.fail(result.failure.message);
      t.is(result.report.leaves, 200);
      lines[99] = spaced(LOG.lines[99]!.replace('checkout-api', 'checkout-apI'));
      t.like(await failure(lines), { kind: 'edited', index: 99, line: 100 });
    },
  );
};

scenarios('in this thread', { threads: 0 });
// Batches of a few lines over two worker threads, after two batches checked here: the order of
// the threads' answers, batch boundaries and the hand-over are exercised too.
scenarios('in threads', { threads: 2, inThreadBytes: 8_000, batchBytes: 4_000 });
