import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A secret generated once into the data dir and reused on every start. Created with `wx`, so two
 *  processes starting together agree on one value. */
export const loadOrCreateSecret = (dataDir: string, name: string): string => {
  const file = path.join(dataDir, name);
  try {
    writeFileSync(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set it in the environment`);
  return secret;
};
