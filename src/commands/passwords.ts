import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt password hashes as `scrypt$N$r$p$salt$hash` (base64url): every hash carries its own
 *  parameters, so hashes of an older, lower cost still verify and are replaced (`needsRehash`) on
 *  the next successful login. */

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's recommendation for scrypt: N=2^17, r=8, p=1 (128 MiB and ~0.1-0.8 s per hash). */
export const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

const KEY_LENGTH = 64;

/** Hashes and checks passwords at one cost. At most `maxConcurrent` derivations run at once in a
 *  process: each takes 128·N·r bytes (128 MiB at the default cost) and a thread of libuv's pool
 *  (4 threads, shared with file and DNS work), so a burst of logins queues here instead of
 *  exhausting memory or starving the rest of the process. */
export class Passwords {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private decoyHash: Promise<string> | null = null;

  constructor(
    readonly params: ScryptParams = SCRYPT_PARAMS,
    private readonly maxConcurrent = 2,
  ) {}

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.params;
    const salt = randomBytes(16);
    const key = await this.derive(password, salt, this.params);
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parseHash(stored);
    if (!parsed) return false;
    const actual = await this.derive(password, parsed.salt, parsed.params);
    return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
  }

  /** Whether a stored hash was made at a lower cost than this one's (or is unreadable). */
  needsRehash(stored: string): boolean {
    const parsed = parseHash(stored);
    if (!parsed) return true;
    const { N, r, p } = parsed.params;
    return N < this.params.N || r < this.params.r || p < this.params.p;
  }

  /** A hash of a random password, made once: verifying against it costs what a real check
   *  costs, so a login for an unknown e-mail takes as long as one with a wrong password. */
  decoy(): Promise<string> {
    this.decoyHash ??= this.hash(randomBytes(16).toString('hex'));
    return this.decoyHash;
  }

  private async derive(password: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> {
    // A finished derivation hands its slot to the next one waiting.
    if (this.running < this.maxConcurrent) this.running += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await new Promise<Buffer>((resolve, reject) =>
        scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 2 * 128 * N * r * p }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      );
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

const parseHash = (stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null => {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash || !Object.values(params).every((v) => Number.isInteger(v) && v > 0))
    return null;
  return { params, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
};

/** A random password for a reset that was given none: 24 bytes, 32 characters of base64url. */
export const generatePassword = (): string => randomBytes(24).toString('base64url');
