import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { UsageError, parseVerifyArgs, runVerify } from '../../src/verify/cli.ts';
import { MAIN, nodeArgs } from '../helpers/process.ts';
import { buildLog, missingLine, newSigner, PROJECT, tempFiles } from './fixtures.ts';

/** `watchlog verify` on files in the forms the API hands out: its exit codes (0 verified,
 *  1 failed, 2 bad usage) and what it prints. The process itself (src/main.ts) is spawned where
 *  the test is about the command line; the other checks run the same code in this process,
 *  since each spawn loads the whole server. */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const spawnVerify = (args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs(MAIN), 'verify', ...args],
      { env: { PATH: process.env.PATH ?? '' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });

/** What src/main.ts does with the arguments, without a process. */
const verify = async (args: string[]): Promise<Run> => {
  let stdout = '';
  let stderr = '';
  try {
    const code = await runVerify(parseVerifyArgs(args), {
      out: (line) => (stdout += `${line}\n`),
      err: (line) => (stderr += `${line}\n`),
    });
    return { code, stdout, stderr };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { code: 2, stdout, stderr: `watchlog verify: ${error.message}\n` };
  }
};

const LOG = buildLog(200);
const SIGNER = newSigner('watchlog.test');

/** The files of an audit: the key, checkpoints at 64 and 200, the stream. */
const files = (t: ExecutionContext) => {
  const file = tempFiles(t);
  return {
    file,
    key: file('key.txt', `${SIGNER.verifierKey}\n`),
    // As GET /v1/checkpoints/key answers.
    keyJson: file(
      'key.json',
      JSON.stringify({
        key_name: SIGNER.name,
        key_id: SIGNER.verifierKey.split('+')[1],
        verifier_key: SIGNER.verifierKey,
        public_key: Buffer.from(SIGNER.verifierKey.split('+').slice(2).join('+'), 'base64')
          .subarray(1)
          .toString('base64'),
        public_key_pem: SIGNER.publicKeyPem,
      }),
    ),
    small: file('cp64.txt', LOG.checkpoint(64, SIGNER)),
    latest: file(
      'latest.json',
      JSON.stringify({
        project_id: PROJECT,
        size: 200,
        root: LOG.roots[200]!.toString('base64'),
        note: LOG.checkpoint(200, SIGNER),
        signed_at: '2026-11-24T12:00:00.000Z',
      }),
    ),
    stream: file('records.ndjson', `${LOG.lines.join('\n')}\n`),
  };
};

test('a good stream: exit 0, one line per checkpoint with its size and root', async (t) => {
  const f = files(t);
  const r = await spawnVerify([
    '--key',
    f.keyJson,
    '--checkpoint',
    f.small,
    '--checkpoint',
    f.latest,
    '--stream',
    f.stream,
  ]);
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  t.is(
    lines[0],
    `verified size 64 root ${LOG.roots[64]!.toString('base64')} ` +
      `(watchlog.test/projects/${PROJECT}, signed by ${SIGNER.verifierKey.split('+').slice(0, 2).join('+')})`,
  );
  t.regex(
    lines[1]!,
    new RegExp(`^verified size 200 root ${LOG.roots[200]!.toString('base64').replace(/[+/]/g, '\\$&')} `),
  );
  t.is(lines[2], `OK: 200 leaves read from ${f.stream}`);
});

test('an edited record: exit 1 naming the leaf', async (t) => {
  const f = files(t);
  const lines = [...LOG.lines];
  lines[57] = lines[57]!.replace('"method":"POST"', '"method":"PUT"');
  const r = await spawnVerify([
    '--key',
    f.key,
    '--checkpoint',
    f.latest,
    '--stream',
    f.file('edited.ndjson', lines.join('\n')),
  ]);
  t.is(r.code, 1);
  t.regex(r.stderr, /^watchlog verify: FAILED: leaf 57 \(line 58, position 271, id evt-57\) was edited/);
});

test('a checkpoint signed by another key, or altered after signing: exit 1 before the stream is read', async (t) => {
  const f = files(t);
  const other = f.file('other.txt', LOG.checkpoint(200, newSigner('watchlog.test')));
  const byOther = await verify(['--key', f.key, '--checkpoint', other, '--stream', f.stream]);
  t.is(byOther.code, 1);
  t.regex(
    byOther.stderr,
    new RegExp(
      'FAILED: checkpoint \\S+other\\.txt: no signature by watchlog\\.test\\+[0-9a-f]{8} ' +
        '\\(the note is signed by watchlog\\.test\\+[0-9a-f]{8}\\)',
    ),
  );
  const note = LOG.checkpoint(200, SIGNER).replace(
    LOG.roots[200]!.toString('base64'),
    LOG.roots[199]!.toString('base64'),
  );
  const altered = await verify(['--key', f.key, '--checkpoint', f.file('altered.txt', note), '--stream', f.stream]);
  t.is(altered.code, 1);
  t.regex(
    altered.stderr,
    /FAILED: checkpoint \S+altered\.txt: the signature by watchlog\.test\+[0-9a-f]{8} does not verify/,
  );
});

test('a missing record: exit 1, or 0 with --allow-missing, which says how many it accepted', async (t) => {
  const f = files(t);
  const lines = [...LOG.lines];
  lines[33] = missingLine(33, LOG.records[33]!, LOG.leaves[33]!);
  const stream = f.file('missing.ndjson', lines.join('\n'));
  const strict = await verify(['--key', f.key, '--checkpoint', f.latest, '--stream', stream]);
  t.is(strict.code, 1);
  t.regex(strict.stderr, /FAILED: leaf 33 \(line 34, position 199\) is missing/);
  const lenient = await verify(['--key', f.key, '--checkpoint', f.latest, '--stream', stream, '--allow-missing']);
  t.is(lenient.code, 0, lenient.stderr);
  t.regex(lenient.stdout, /OK: 200 leaves read from \S+; 1 missing records accepted by their leaf hash/);
});

test(
  'a truncated stream against a witness file of several checkpoints: ' + 'exit 1 naming the first missing leaf',
  async (t) => {
    const f = files(t);
    const witness = f.file(
      'witness.txt',
      [10, 64, 150, 200].map((size) => `${LOG.checkpoint(size, SIGNER)}\n`).join(''),
    );
    const r = await verify([
      '--key',
      f.key,
      '--checkpoint',
      witness,
      '--stream',
      f.file('short.ndjson', LOG.lines.slice(0, 120).join('\n')),
    ]);
    t.is(r.code, 1);
    t.regex(
      r.stderr,
      new RegExp(
        'FAILED: the stream is truncated: it ends after 120 leaves, ' +
          'and the checkpoint of size 150 needs leaves 120 to 149 too \\(the first missing is leaf 120\\)',
      ),
    );
  },
);

test("a record and its inclusion proof: exit 0; the record edited, or another leaf's proof: exit 1", async (t) => {
  const f = files(t);
  const record = f.file('record.json', LOG.lines[77]!);
  const proof = f.file('inclusion.json', JSON.stringify(await LOG.inclusion(77, 200)));
  const ok = await verify(['--key', f.key, '--checkpoint', f.latest, '--record', record, '--proof', proof]);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /^verified leaf 77 \(id evt-77\) is in the tree of size 200 root /);
  const edited = await verify([
    '--key',
    f.key,
    '--checkpoint',
    f.latest,
    '--record',
    f.file('edited.json', LOG.lines[77]!.replace('evt-77', 'evt-78')),
    '--proof',
    proof,
  ]);
  t.is(edited.code, 1);
  t.regex(edited.stderr, /FAILED: leaf 77 \(id evt-78\) was edited/);
  const otherProof = f.file(
    'other.json',
    JSON.stringify({ ...(await LOG.inclusion(78, 200)), index: 77, leaf_hash: LOG.leaves[77]!.toString('base64') }),
  );
  const wrong = await verify(['--key', f.key, '--checkpoint', f.latest, '--record', record, '--proof', otherProof]);
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /FAILED: the inclusion proof does not verify/);
});

test('two checkpoints and a consistency proof: exit 0; a proof for other sizes, or altered: exit 1', async (t) => {
  const f = files(t);
  const proof = await LOG.consistency(64, 200);
  const ok = await verify([
    '--key',
    f.key,
    '--checkpoint',
    f.latest,
    '--checkpoint',
    f.small,
    '--proof',
    f.file('c.json', JSON.stringify(proof)),
  ]);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /^verified size 64 root \S+ is a prefix of size 200 root \S+/);
  const altered = { ...proof, proof: [LOG.leaves[0]!.toString('base64'), ...proof.proof.slice(1)] };
  const bad = await verify([
    '--key',
    f.key,
    '--checkpoint',
    f.small,
    '--checkpoint',
    f.latest,
    '--proof',
    f.file('bad.json', JSON.stringify(altered)),
  ]);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /FAILED: the consistency proof does not verify/);
  const sizes = await verify([
    '--key',
    f.key,
    '--checkpoint',
    f.small,
    '--checkpoint',
    f.latest,
    '--proof',
    f.file('sizes.json', JSON.stringify(await LOG.consistency(63, 200))),
  ]);
  t.is(sizes.code, 1);
  t.regex(sizes.stderr, /FAILED: the proof is from size 63 to 200, the checkpoints have sizes 64 and 200/);
});

test(
  'bad usage exits 2 with one line: missing options, ' + 'unknown ones, unreadable files, a bad key, --data-dir',
  async (t) => {
    const f = files(t);
    const cases: Array<[string[], RegExp]> = [
      [[], /^watchlog verify: --key KEYFILE is required .*\(watchlog verify --help\)\n$/],
      [['--key', f.key, '--stream', f.stream], /^watchlog verify: --checkpoint NOTE is required/],
      [['--key', f.key, '--checkpoint', f.latest], /^watchlog verify: nothing to verify/],
      [
        ['--key', f.key, '--checkpoint', f.latest, '--stream', f.stream, '--verbose'],
        /^watchlog verify: unknown option --verbose/,
      ],
      [
        ['--key', f.key, '--checkpoint', f.latest, '--stream', `${f.stream}.gone`],
        /^watchlog verify: cannot read the stream \S+: ENOENT\n$/,
      ],
      [
        [
          '--key',
          f.file('bad-key.txt', SIGNER.verifierKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')),
          '--checkpoint',
          f.latest,
          '--stream',
          f.stream,
        ],
        /^watchlog verify: --key \S+: the key id 00000000 is not/,
      ],
      [
        [
          '--key',
          f.file(
            'pem.json',
            JSON.stringify({ verifier_key: SIGNER.verifierKey, public_key_pem: newSigner().publicKeyPem }),
          ),
          '--checkpoint',
          f.latest,
          '--stream',
          f.stream,
        ],
        /its public_key_pem is not that of watchlog\.test\+[0-9a-f]{8}$/m,
      ],
      [
        ['--key', f.key, '--checkpoint', f.latest, '--proof', f.file('c.json', '{}')],
        /^watchlog verify: a consistency proof needs two checkpoints/,
      ],
      [
        [
          '--key',
          f.key,
          '--checkpoint',
          f.file(
            'two-logs.txt',
            `${LOG.checkpoint(64, SIGNER)}\n${LOG.checkpoint(64, SIGNER, 'watchlog.test/projects/other')}\n`,
          ),
          '--stream',
          f.stream,
        ],
        new RegExp(
          '^watchlog verify: the checkpoint files hold checkpoints of 2 logs ' +
            '\\(watchlog\\.test/projects/\\S+, watchlog\\.test/projects/other\\): add one --checkpoint',
        ),
      ],
      [
        ['--data-dir', f.file('dir', '')],
        /^watchlog verify: \S+ holds no embedded deployment \(log\.db and views\.db\)\n$/,
      ],
    ];
    // The command line's own errors through the process, the rest in this one.
    const results = await Promise.all(
      cases.map(([args], i) =>
        i === 0 || i === 3 || i === 4 || i === cases.length - 1 ? spawnVerify(args) : verify(args),
      ),
    );
    results.forEach((r, i) => {
      t.is(r.code, 2, `case ${i}: ${r.stderr}`);
      t.regex(r.stderr, cases[i]![1], `case ${i}`);
      t.is(r.stderr.trim().split('\n').length, 1, `case ${i}: one line`);
      t.is(r.stdout, '');
    });
  },
);

test("--help prints the command's usage and exits 0", async (t) => {
  const r = await spawnVerify(['--help']);
  t.is(r.code, 0);
  t.regex(
    r.stdout,
    new RegExp(
      '^watchlog verify — [\\s\\S]*' +
        'watchlog verify --key KEY --checkpoint NOTE --record record\\.json --proof inclusion\\.json',
    ),
  );
});
