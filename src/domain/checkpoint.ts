import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

/** Checkpoints (docs/auditors.md): a project's tree head as a C2SP tlog-checkpoint, signed as a
 *  C2SP signed-note with Ed25519. The origin is the deployment's `WATCHLOG_LOG_ORIGIN` and the
 *  project; the key name is the deployment's origin. */

/** `scheme-less URL` rules of signed notes: non-empty, no spaces, no `+`. */
export const isKeyName = (name: string): boolean => /^[^\s+]+$/u.test(name);

export const checkpointOrigin = (logOrigin: string, projectId: string): string => `${logOrigin}/projects/${projectId}`;

/** The three lines of a tlog-checkpoint, each ending with a newline. */
export const checkpointText = (origin: string, size: number, root: Uint8Array): string =>
  `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;

/** PKCS #8 wrapping of a 32-byte Ed25519 seed (RFC 8410), so node:crypto can take the seed. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface CheckpointSigner {
  readonly keyName: string;
  readonly publicKey: Buffer;
  /** SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]. */
  readonly keyId: Buffer;
  /** `<name>+<key id hex>+<base64(0x01 ‖ public key)>`, the note package's verifier key. */
  readonly verifierKey: string;
  readonly publicKeyPem: string;
  /** The signed note: the text, a blank line, and this key's signature line. */
  sign(text: string): string;
}

export const checkpointSigner = (keyName: string, seed: Uint8Array): CheckpointSigner => {
  if (!isKeyName(keyName))
    throw new Error(`key name ${JSON.stringify(keyName)} must be non-empty, without spaces or +`);
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKeyObject = createPublicKey(privateKey);
  const publicKey = Buffer.from(publicKeyObject.export({ format: 'jwk' }).x!, 'base64url');
  const keyId = createHash('sha256')
    .update(keyName)
    .update(Buffer.from([0x0a, 0x01]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
  const typedKey = Buffer.concat([Buffer.from([0x01]), publicKey]);
  return {
    keyName,
    publicKey,
    keyId,
    verifierKey: `${keyName}+${keyId.toString('hex')}+${typedKey.toString('base64')}`,
    publicKeyPem: publicKeyObject.export({ format: 'pem', type: 'spki' }).toString(),
    sign(text) {
      const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
      return `${text}\n\u2014 ${keyName} ${Buffer.concat([keyId, signature]).toString('base64')}\n`;
    },
  };
};
