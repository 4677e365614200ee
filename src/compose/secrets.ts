import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import type { VapidKeys } from '../reactors/notifications/webpush.ts';

/** Writes `content` to `file` unless it exists, atomically: the content goes to a file of this
 *  process first, which is then hard-linked into place (link fails if the name is taken). Two
 *  processes starting together agree on one value, and neither can read the file half-written
 *  (as an exclusive create followed by a write would let it). */
export const createOnce = (file: string, content: string): void => {
  const staged = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(staged, content, { mode: 0o600 });
  try {
    linkSync(staged, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(staged, { force: true });
  }
};

/** A secret generated once into the data dir and reused on every start. */
export const loadOrCreateSecret = (dataDir: string, name: string): string => {
  const file = path.join(dataDir, name);
  createOnce(file, randomBytes(48).toString('base64url'));
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set it in the environment`);
  return secret;
};

/** VAPID keys generated once into the data dir (`vapid.json`, mode 600) and reused on every start;
 *  two processes starting together agree on one pair. */
export const loadOrCreateVapidKeys = (dataDir: string): VapidKeys => {
  const file = path.join(dataDir, 'vapid.json');
  createOnce(file, JSON.stringify(webpush.generateVAPIDKeys()));
  const keys = JSON.parse(readFileSync(file, 'utf8')) as Partial<VapidKeys>;
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string')
    throw new Error(`${file} does not hold VAPID keys; delete it to generate new ones`);
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
};

/** The checkpoints' Ed25519 seed, generated once into the data dir (`checkpoint-key.json`, mode
 *  600) and reused on every start, by every process sharing the data dir. */
export const loadOrCreateCheckpointSeed = (dataDir: string): Buffer => {
  const file = path.join(dataDir, 'checkpoint-key.json');
  createOnce(file, JSON.stringify({ seed: randomBytes(32).toString('base64') }));
  const { seed } = JSON.parse(readFileSync(file, 'utf8')) as { seed?: unknown };
  const bytes = typeof seed === 'string' ? Buffer.from(seed, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32)
    throw new Error(
      `${file} does not hold a 32-byte Ed25519 seed; delete it to generate a new key (earlier ` +
        `checkpoints then no longer verify with the new key)`,
    );
  return bytes;
};
