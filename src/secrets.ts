import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set it in the environment`);
  return secret;
};
