import { createReadStream } from 'node:fs';
import { leafText } from './canonical.ts';
import { decodeHash } from './base64.ts';
import {
  UsageError,
  VerificationFailure,
  readConsistencyProof,
  readInclusionProof,
  readNotes,
  readObject,
  readVerifierKey,
} from './inputs.ts';
import { NoteError, openCheckpoint, parseCheckpoint, parseNote, type Checkpoint, type VerifierKey } from './note.ts';
import { verifyStream, type StreamResult } from './stream.ts';
import { leafHashOfText, verifyConsistency, verifyInclusion } from './tree.ts';

/** `watchlog verify`: its options, and the three checks it runs offline (a stream against
 *  checkpoints, a record's inclusion proof, a consistency proof between two checkpoints). */

export { UsageError } from './inputs.ts';

export interface VerifyOptions {
  readonly keys: readonly string[];
  readonly checkpoints: readonly string[];
  readonly stream: string | undefined;
  readonly record: string | undefined;
  readonly proof: string | undefined;
  readonly allowMissing: boolean;
  /** The server's own check of a data dir: not this module's (src/main.ts routes it). */
  readonly dataDir: string | undefined;
}

const VALUE_FLAGS = ['--key', '--checkpoint', '--stream', '--record', '--proof', '--data-dir'] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];
const isValueFlag = (s: string): s is ValueFlag => (VALUE_FLAGS as readonly string[]).includes(s);

/** Reads the arguments after `verify`; a UsageError says, in one line, what is wrong. */
export const parseVerifyArgs = (argv: readonly string[]): VerifyOptions => {
  const values: Record<ValueFlag, string[]> = {
    '--key': [],
    '--checkpoint': [],
    '--stream': [],
    '--record': [],
    '--proof': [],
    '--data-dir': [],
  };
  let allowMissing = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--allow-missing') {
      allowMissing = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!isValueFlag(flag))
      throw new UsageError(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument "${arg}"`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--')))
      throw new UsageError(`${flag} needs a file`);
    values[flag].push(value);
  }
  for (const flag of ['--stream', '--record', '--proof', '--data-dir'] as const) {
    if (values[flag].length > 1) throw new UsageError(`${flag} is given more than once`);
  }
  const [stream, record, proof, dataDir] = (['--stream', '--record', '--proof', '--data-dir'] as const).map(
    (f) => values[f][0],
  );
  const options: VerifyOptions = {
    keys: values['--key'],
    checkpoints: values['--checkpoint'],
    stream,
    record,
    proof,
    allowMissing,
    dataDir,
  };
  if (dataDir !== undefined) {
    const others =
      options.keys.length + options.checkpoints.length + [stream, record, proof].filter((f) => f !== undefined).length;
    if (others > 0 || allowMissing) throw new UsageError('--data-dir takes no other option');
    return options;
  }
  if (options.keys.length === 0)
    throw new UsageError('--key KEYFILE is required (the verifier key, or the answer of GET /v1/checkpoints/key)');
  if (options.checkpoints.length === 0) throw new UsageError('--checkpoint NOTE is required (a signed checkpoint)');
  if (stream !== undefined && (record !== undefined || proof !== undefined))
    throw new UsageError('--stream cannot be combined with --record or --proof');
  if (record !== undefined && proof === undefined)
    throw new UsageError('--record needs --proof (the answer of GET /v1/proofs/inclusion)');
  if (stream === undefined && proof === undefined)
    throw new UsageError('nothing to verify: give --stream, --record with --proof, or --proof with two checkpoints');
  if (allowMissing && stream === undefined && record === undefined)
    throw new UsageError('--allow-missing applies to --stream and --record only');
  return options;
};

export interface Output {
  /** What verified, a line at a time (stdout). */
  readonly out: (line: string) => void;
  /** What failed or could not run (stderr). */
  readonly err: (line: string) => void;
}

const b64 = (hash: Buffer) => hash.toString('base64');

type SignedCheckpoint = Checkpoint & { readonly source: string; readonly signedBy: VerifierKey[] };

/** Opens the checkpoints and checks that they can be of one history: one log, and no two roots
 *  for one size. A file of several notes (a witness file) keeps the checkpoints of every project
 *  of a deployment: of its notes, those of the log the other checkpoints name are used. */
const openCheckpoints = (files: readonly string[], keys: readonly VerifierKey[]): SignedCheckpoint[] => {
  const inNote = <T>(source: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof NoteError) throw new VerificationFailure(`checkpoint ${source}: ${error.message}`);
      throw error;
    }
  };
  const notes = files.flatMap((file) => {
    const found = readNotes(file);
    return found.map(({ source, message }) => ({
      source,
      message,
      alone: found.length === 1,
      origin: inNote(source, () => parseCheckpoint(parseNote(message).text).origin),
    }));
  });
  const anchors = new Set(notes.filter((n) => n.alone).map((n) => n.origin));
  const origins = new Set(notes.map((n) => n.origin));
  if (anchors.size === 0 && origins.size > 1) {
    throw new UsageError(
      `the checkpoint files hold checkpoints of ${origins.size} logs (${[...origins].join(', ')}): add ` +
        `one --checkpoint of the log to check, such as the answer of GET /v1/checkpoints/latest`,
    );
  }
  const opened = notes
    .filter((n) => n.alone || anchors.size === 0 || anchors.has(n.origin))
    .map(({ source, message }) => ({ ...inNote(source, () => openCheckpoint(message, keys)), source }));
  const sorted = opened.sort((a, b) => a.size - b.size);
  for (let i = 1; i < sorted.length; i += 1) {
    const [a, b] = [sorted[0]!, sorted[i]!];
    if (a.origin !== b.origin)
      throw new VerificationFailure(
        `the checkpoints are of different logs: ${a.origin} (${a.source}) and ${b.origin} (${b.source})`,
      );
    const previous = sorted[i - 1]!;
    if (previous.size === b.size && !previous.root.equals(b.root)) {
      throw new VerificationFailure(
        `two checkpoints of size ${b.size} sign different roots (${previous.source}, ${b.source}): the log forked`,
      );
    }
  }
  return sorted;
};

const signedBy = (c: SignedCheckpoint) => `${c.origin}, signed by ${c.signedBy.map((k) => k.label).join(', ')}`;

const checkStream = async (
  path: string,
  checkpoints: SignedCheckpoint[],
  allowMissing: boolean,
  io: Output,
): Promise<number> => {
  let result: StreamResult;
  try {
    result = await verifyStream(createReadStream(path, { highWaterMark: 1 << 20 }), checkpoints, { allowMissing });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The file system's errors (ENOENT, EISDIR, EACCES…) are the file's, not the stream's.
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
      throw new UsageError(`cannot read the stream ${path}: ${code}`);
    throw error;
  }
  if (!result.ok) throw new VerificationFailure(result.failure.message);
  const { leaves, missing, verified } = result.report;
  for (const v of verified) {
    const c = checkpoints.find((cp) => cp.size === v.size)!;
    io.out(`verified size ${v.size} root ${b64(v.root)} (${signedBy(c)})`);
  }
  const covered = checkpoints.at(-1)!.size;
  const notes = [
    `${leaves} leaves read from ${path}`,
    missing > 0 ? `${missing} missing records accepted by their leaf hash` : '',
    leaves > covered
      ? `the ${leaves - covered} after size ${covered} are checked against their own leaf hashes only ` +
        `(no checkpoint covers them)`
      : '',
  ].filter((s) => s !== '');
  io.out(`OK: ${notes.join('; ')}`);
  return 0;
};

const checkRecord = (
  recordPath: string,
  proofPath: string,
  checkpoint: SignedCheckpoint,
  allowMissing: boolean,
  io: Output,
): number => {
  const record = readObject(recordPath, 'the record');
  const proof = readInclusionProof(proofPath);
  const name = `leaf ${proof.index}${typeof record.id === 'string' ? ` (id ${record.id})` : ''}`;
  if (proof.size !== checkpoint.size)
    throw new VerificationFailure(
      `the proof is for a tree of ${proof.size} leaves, the checkpoint's has ${checkpoint.size}: ask ` +
        `for the proof at size=${checkpoint.size}`,
    );
  if (record.leaf_index !== undefined && record.leaf_index !== proof.index)
    throw new VerificationFailure(
      `the record is leaf ${String(record.leaf_index)}, the proof is for leaf ${proof.index}`,
    );
  let leaf: Buffer;
  if (record.missing === true) {
    const given = typeof record.leaf_hash === 'string' ? decodeHash(record.leaf_hash) : null;
    if (!allowMissing || given === null)
      throw new VerificationFailure(
        `${name} is missing: the tree holds it but the log no longer has the ` +
          `record${allowMissing ? ' (and its leaf_hash is not a hash)' : ''}`,
      );
    leaf = given;
  } else {
    leaf = leafHashOfText(leafText(record));
    if (typeof record.leaf_hash === 'string' && b64(leaf) !== record.leaf_hash) {
      throw new VerificationFailure(
        `${name} was edited: its fields hash to ${b64(leaf)}, its leaf_hash is ${record.leaf_hash}`,
      );
    }
  }
  if (!leaf.equals(proof.leafHash))
    throw new VerificationFailure(
      `${name}: the record hashes to ${b64(leaf)}, the proof is for the leaf hash ` +
        `${b64(proof.leafHash)} (the record was edited)`,
    );
  if (!verifyInclusion(proof.index, proof.size, leaf, proof.path, checkpoint.root)) {
    throw new VerificationFailure(
      `the inclusion proof does not verify: it does not lead from ${name} to the root ` +
        `${b64(checkpoint.root)} of size ${checkpoint.size}`,
    );
  }
  io.out(
    `verified ${name} is in the tree of size ${checkpoint.size} root ${b64(checkpoint.root)} (${signedBy(checkpoint)})`,
  );
  return 0;
};

const checkConsistency = (proofPath: string, older: SignedCheckpoint, newer: SignedCheckpoint, io: Output): number => {
  const proof = readConsistencyProof(proofPath);
  if (proof.from !== older.size || proof.to !== newer.size) {
    throw new VerificationFailure(
      `the proof is from size ${proof.from} to ${proof.to}, the checkpoints have sizes ${older.size} and ${newer.size}`,
    );
  }
  if (!verifyConsistency(older.size, newer.size, older.root, newer.root, proof.path)) {
    throw new VerificationFailure(
      `the consistency proof does not verify: the tree of size ${older.size} (root ${b64(older.root)}) ` +
        `is not shown to be a prefix of the tree of size ${newer.size} (root ${b64(newer.root)})`,
    );
  }
  io.out(
    `verified size ${older.size} root ${b64(older.root)} is a prefix of size ${newer.size} root ` +
      `${b64(newer.root)} (${signedBy(newer)})`,
  );
  return 0;
};

/** Runs the check the options name: 0 when it verifies, 1 naming the first failure, 2 when it
 *  cannot run (unreadable files, an unusable key, the wrong number of checkpoints). */
export const runVerify = async (options: VerifyOptions, io: Output): Promise<number> => {
  try {
    const keys = options.keys.map(readVerifierKey);
    const checkpoints = openCheckpoints(options.checkpoints, keys);
    if (options.stream !== undefined) return await checkStream(options.stream, checkpoints, options.allowMissing, io);
    if (options.record !== undefined) {
      if (checkpoints.length !== 1)
        throw new UsageError(`--record checks against one checkpoint, and ${checkpoints.length} were given`);
      return checkRecord(options.record, options.proof!, checkpoints[0]!, options.allowMissing, io);
    }
    if (checkpoints.length !== 2)
      throw new UsageError(
        `a consistency proof needs two checkpoints (the older and the newer), and ${checkpoints.length} were given`,
      );
    return checkConsistency(options.proof!, checkpoints[0]!, checkpoints[1]!, io);
  } catch (error) {
    if (error instanceof VerificationFailure) {
      io.err(`watchlog verify: FAILED: ${error.message}`);
      return 1;
    }
    if (error instanceof UsageError) {
      io.err(`watchlog verify: ${error.message}`);
      return 2;
    }
    throw error;
  }
};
