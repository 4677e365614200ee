import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { decodeBase64, decodeHash } from './base64.ts';

/** C2SP signed-note (https://c2sp.org/signed-note) with Ed25519 keys, and the tlog-checkpoint
 *  body (https://c2sp.org/tlog-checkpoint), as docs/auditors.md describes them. Parsing is strict
 *  where the formats are: a checkpoint that reads two ways is not a checkpoint. */

export class NoteError extends Error {}

/** The algorithm byte of an Ed25519 verifier key. */
const ED25519 = 0x01;

export interface VerifierKey {
  readonly name: string;
  /** SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4], big-endian. */
  readonly id: number;
  readonly publicKey: KeyObject;
  /** The raw 32-byte Ed25519 public key. */
  readonly raw: Buffer;
  /** `name+id`, as messages name the key. */
  readonly label: string;
}

const hex8 = (id: number) => id.toString(16).padStart(8, '0');

/** A key name: not empty, no white space, no "+" (which separates the verifier key's parts). */
const isValidName = (name: string) => name.length > 0 && !/[\s+]/u.test(name);

const keyIdOf = (name: string, typeAndKey: Uint8Array): number =>
  createHash('sha256')
    .update(name, 'utf8')
    .update(new Uint8Array([0x0a]))
    .update(typeAndKey)
    .digest()
    .readUInt32BE(0);

/** Parses `<name>+<8 hex digits>+<base64(0x01 ‖ 32-byte Ed25519 public key)>`. */
export const parseVerifierKey = (text: string): VerifierKey => {
  const [name, id, key, ...rest] = text.split('+');
  // The base64 part may hold "+" itself: put it back together.
  const key64 = [key, ...rest].join('+');
  if (name === undefined || id === undefined || key === undefined || !isValidName(name) || !/^[0-9a-f]{8}$/.test(id)) {
    throw new NoteError('not a verifier key: expected <name>+<8 hex digits>+<base64 key>');
  }
  const typeAndKey = decodeBase64(key64);
  if (typeAndKey === null || typeAndKey.length !== 33 || typeAndKey[0] !== ED25519) {
    throw new NoteError('not an Ed25519 verifier key: its base64 part must hold 0x01 and a 32-byte public key');
  }
  if (keyIdOf(name, typeAndKey) !== Number.parseInt(id, 16)) {
    throw new NoteError(
      `the key id ${id} is not SHA-256(name, 0x0A, key)[:4] of this key: the verifier key was altered`,
    );
  }
  const raw = typeAndKey.subarray(1);
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    throw new NoteError('the verifier key does not hold a usable Ed25519 public key');
  }
  return { name, id: Number.parseInt(id, 16), publicKey, raw: Buffer.from(raw), label: `${name}+${id}` };
};

export interface Signature {
  readonly name: string;
  readonly id: number;
  readonly signature: Buffer;
  readonly label: string;
}

/** A note split into its text and signatures, unverified. */
export interface ParsedNote {
  readonly text: string;
  readonly signatures: readonly Signature[];
}

const SIGNATURE_PREFIX = '\u2014 ';
const MAX_SIGNATURES = 100;

/** Splits a signed note: a text ending in a newline, a blank line, then lines
 *  `— <name> <base64(key id ‖ signature)>`, each ending in a newline. */
export const parseNote = (message: string): ParsedNote => {
  for (let i = 0; i < message.length; i += 1) {
    const c = message.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a)
      throw new NoteError(
        `not a signed note: it holds the control character ` +
          `0x${c.toString(16).padStart(2, '0')}${c === 0x0d ? ' (Windows line ends?)' : ''}`,
      );
  }
  // The signature covers the UTF-8 bytes: a string that UTF-8 cannot hold as is has no such bytes.
  if (Buffer.from(message, 'utf8').toString('utf8') !== message)
    throw new NoteError('not a signed note: it is not valid UTF-8');
  const split = message.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('not a signed note: no blank line between its text and its signatures');
  const text = message.slice(0, split + 1);
  const block = message.slice(split + 2);
  if (block === '' || !block.endsWith('\n'))
    throw new NoteError('not a signed note: its signature lines must end with a newline');
  const signatures: Signature[] = [];
  for (const line of block.slice(0, -1).split('\n')) {
    if (!line.startsWith(SIGNATURE_PREFIX))
      throw new NoteError(`not a signed note: "${line.slice(0, 40)}" is not a signature line (— name signature)`);
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(' ');
    const name = space < 0 ? rest : rest.slice(0, space);
    const blob = space < 0 ? null : decodeBase64(rest.slice(space + 1));
    if (!isValidName(name) || blob === null || blob.length < 5)
      throw new NoteError(`not a signed note: malformed signature line "${line.slice(0, 40)}"`);
    if (signatures.length === MAX_SIGNATURES)
      throw new NoteError(`not a signed note: more than ${MAX_SIGNATURES} signatures`);
    const id = blob.readUInt32BE(0);
    signatures.push({ name, id, signature: blob.subarray(4), label: `${name}+${hex8(id)}` });
  }
  return { text, signatures };
};

/** The note's text, once a known key's signature verifies. Signatures by unknown keys are
 *  ignored (witnesses may cosign); a known key's signature that does not verify rejects the
 *  note, as does a note that no known key signed. */
export const openNote = (message: string, keys: readonly VerifierKey[]): { text: string; signedBy: VerifierKey[] } => {
  const note = parseNote(message);
  const bytes = Buffer.from(note.text, 'utf8');
  const signedBy: VerifierKey[] = [];
  for (const sig of note.signatures) {
    const key = keys.find((k) => k.name === sig.name && k.id === sig.id);
    if (key === undefined || signedBy.includes(key)) continue;
    let valid = false;
    try {
      valid = verify(null, bytes, key.publicKey, sig.signature);
    } catch {
      valid = false;
    }
    if (!valid)
      throw new NoteError(`the signature by ${key.label} does not verify: the note's text is not what that key signed`);
    signedBy.push(key);
  }
  if (signedBy.length === 0) {
    const seen = note.signatures.map((s) => s.label).join(', ');
    throw new NoteError(`no signature by ${keys.map((k) => k.label).join(' or ')} (the note is signed by ${seen})`);
  }
  return { text: note.text, signedBy };
};

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Buffer;
}

/** A tlog-checkpoint body: the origin, the tree size in decimal, the root in base64, then
 *  optional extension lines (none of which may be empty). */
export const parseCheckpoint = (text: string): Checkpoint => {
  const lines = text.split('\n');
  // The text ends with a newline, so the last piece is empty.
  lines.pop();
  const [origin, size, root] = lines;
  if (origin === undefined || size === undefined || root === undefined)
    throw new NoteError('not a checkpoint: it needs an origin, a tree size and a root hash, one a line');
  if (lines.some((line) => line === '')) throw new NoteError('not a checkpoint: it has an empty line');
  if (!/^(0|[1-9][0-9]*)$/.test(size))
    throw new NoteError(
      `not a checkpoint: the tree size "${size.slice(0, 30)}" is not a decimal number without leading zeros`,
    );
  const parsedSize = Number(size);
  if (!Number.isSafeInteger(parsedSize))
    throw new NoteError(`the tree size ${size} is beyond what this verifier counts (2^53)`);
  const parsedRoot = decodeHash(root);
  if (parsedRoot === null)
    throw new NoteError(`not a checkpoint: the root "${root.slice(0, 60)}" is not the base64 of a 32-byte hash`);
  return { origin, size: parsedSize, root: parsedRoot };
};

/** A signed checkpoint, verified against the keys. */
export const openCheckpoint = (
  message: string,
  keys: readonly VerifierKey[],
): Checkpoint & { signedBy: VerifierKey[] } => {
  const { text, signedBy } = openNote(message, keys);
  return { ...parseCheckpoint(text), signedBy };
};
