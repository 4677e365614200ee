import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeHash } from './base64.ts';
import { parseVerifierKey, type VerifierKey } from './note.ts';

/** The files `watchlog verify` reads, in the forms an auditor gets them: what the API answers
 *  (JSON) or the bare text (a key line, a note as a witness keeps it). */

/** The command was given something it cannot use: exit 2. */
export class UsageError extends Error {}

/** What was given does not verify: exit 1. */
export class VerificationFailure extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const readText = (path: string, what: string): string => {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new VerificationFailure(`${what} ${path} is not UTF-8 text`);
  }
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A verifier key: the key line, or the JSON answer of `GET /v1/checkpoints/key` (its
 *  `verifier_key`, which must name the same key as the answer's other fields). The key is what
 *  the auditor trusts, so anything wrong with it is a usage error. */
export const readVerifierKey = (path: string): VerifierKey => {
  const text = readText(path, 'the key file').trim();
  const json = text.startsWith('{') ? parseJson(text) : undefined;
  const fail = (reason: string) => new UsageError(`--key ${path}: ${reason}`);
  let key: VerifierKey;
  try {
    key = parseVerifierKey(
      isObject(json) && typeof json.verifier_key === 'string' ? json.verifier_key.trim() : text.split('\n')[0]!.trim(),
    );
  } catch (error) {
    throw fail((error as Error).message);
  }
  if (!isObject(json)) return key;
  let pem: string | undefined;
  try {
    pem =
      typeof json.public_key_pem === 'string'
        ? createPublicKey(json.public_key_pem).export({ format: 'jwk' }).x
        : undefined;
  } catch {
    throw fail('its public_key_pem is not a public key');
  }
  const others: Array<[string, unknown, string]> = [
    ['key_name', json.key_name, key.name],
    ['key_id', json.key_id, key.label.split('+')[1]!],
    ['public_key', json.public_key, key.raw.toString('base64')],
    ['public_key_pem', pem, key.raw.toString('base64url')],
  ];
  for (const [field, value, expected] of others) {
    if (value !== undefined && value !== expected) throw fail(`its ${field} is not that of ${key.label}`);
  }
  return key;
};

export interface NoteInput {
  readonly source: string;
  readonly message: string;
}

/** The notes of a checkpoint file: the JSON answer of `GET /v1/checkpoints/latest` (its `note`),
 *  one note, or several as WATCHLOG_WITNESS_FILE keeps them (each followed by a blank line). */
export const readNotes = (path: string): NoteInput[] => {
  const text = readText(path, 'the checkpoint file');
  if (text.trimStart().startsWith('{')) {
    const json = parseJson(text);
    if (!isObject(json) || typeof json.note !== 'string')
      throw new VerificationFailure(`checkpoint ${path}: JSON without a "note" field, so not a checkpoint answer`);
    return [{ source: path, message: json.note }];
  }
  // Within a note the blank line is followed by its signatures ("— "); between notes it is not.
  const pieces = text.split(/\n\n(?!\u2014 )/).filter((piece) => piece.trim() !== '');
  if (pieces.length === 0) throw new VerificationFailure(`checkpoint ${path} is empty`);
  return pieces.map((piece, i) => ({
    source: pieces.length === 1 ? path : `${path} (note ${i + 1})`,
    message: piece.endsWith('\n') ? piece : `${piece}\n`,
  }));
};

/** A JSON file that must hold an object: a record line, a proof. */
export const readObject = (path: string, what: string): Record<string, unknown> => {
  const json = parseJson(readText(path, what).trim());
  if (!isObject(json)) throw new VerificationFailure(`${what} ${path} is not a JSON object`);
  return json;
};

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

const hashes = (value: unknown, path: string): Buffer[] => {
  if (!Array.isArray(value)) throw new VerificationFailure(`proof ${path}: "proof" is not an array of base64 hashes`);
  return value.map((item, i) => {
    const hash = typeof item === 'string' ? decodeHash(item) : null;
    if (hash === null) throw new VerificationFailure(`proof ${path}: proof[${i}] is not the base64 of a 32-byte hash`);
    return hash;
  });
};

export interface InclusionProof {
  readonly index: number;
  readonly size: number;
  readonly leafHash: Buffer;
  readonly path: Buffer[];
}

/** `GET /v1/proofs/inclusion`'s answer: { index, size, leaf_hash, proof }. */
export const readInclusionProof = (path: string): InclusionProof => {
  const json = readObject(path, 'the proof');
  const leafHash = typeof json.leaf_hash === 'string' ? decodeHash(json.leaf_hash) : null;
  if (!isCount(json.index) || !isCount(json.size) || leafHash === null) {
    throw new VerificationFailure(
      `proof ${path} is not an inclusion proof: expected { index, size, leaf_hash, proof }`,
    );
  }
  return { index: json.index, size: json.size, leafHash, path: hashes(json.proof, path) };
};

export interface ConsistencyProof {
  readonly from: number;
  readonly to: number;
  readonly path: Buffer[];
}

/** `GET /v1/proofs/consistency`'s answer: { from, to, proof }. */
export const readConsistencyProof = (path: string): ConsistencyProof => {
  const json = readObject(path, 'the proof');
  if (!isCount(json.from) || !isCount(json.to))
    throw new VerificationFailure(`proof ${path} is not a consistency proof: expected { from, to, proof }`);
  return { from: json.from, to: json.to, path: hashes(json.proof, path) };
};
