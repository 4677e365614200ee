import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Secrets the log holds but must not show (a TOTP secret): AES-256-GCM under a key the log does
 *  not hold, bound to what they belong to (`context`, authenticated data), so a sealed value
 *  copied into another user's event does not open. `v1.<iv>.<ciphertext>.<tag>`, base64url. */

export const seal = (key: Buffer, context: string, plain: Buffer): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return ['v1', iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
};

/** Null when it does not open with this key and context (another key, tampered, another user). */
export const unseal = (key: Buffer, context: string, sealed: string): Buffer | null => {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || body === undefined || tag === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      .setAAD(Buffer.from(context))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  } catch {
    return null;
  }
};
