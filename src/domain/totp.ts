import { createHmac, timingSafeEqual } from 'node:crypto';

/** RFC 6238 time-based one-time passwords as authenticator apps compute them: HMAC-SHA1, a
 *  30-second step, six digits, the secret in RFC 4648 base32 without padding. */

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one: a phone's clock a little off, a code typed as
 *  its step ended. */
export const TOTP_WINDOW = 1;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const base32Encode = (bytes: Uint8Array): string => {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
};

/** Null for text that is not base32 (spaces and case are forgiven, as apps show secrets). */
export const base32Decode = (text: string): Buffer | null => {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
};

/** RFC 4226's HOTP of `counter` under `secret`. */
export const hotp = (secret: Uint8Array, counter: number): string => {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return code.toString().padStart(TOTP_DIGITS, '0');
};

/** The step a time falls in. */
export const totpStep = (at: Date): number => Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);

/** The code of the step `at` falls in. */
export const totpCode = (secret: Uint8Array, at: Date): string => hotp(secret, totpStep(at));

/** The step whose code `code` is, within the window around `at`, and after `lastUsedStep` (a code
 *  is good once: neither it nor an earlier step's code is taken again); null otherwise. */
export const matchTotp = (secret: Uint8Array, code: string, at: Date, lastUsedStep: number | null): number | null => {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(at);
  let matched: number | null = null;
  // Every step of the window is computed, so the time taken says nothing about which matched.
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step += 1) {
    if (timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(code)) && matched === null) matched = step;
  }
  return matched !== null && (lastUsedStep === null || matched > lastUsedStep) ? matched : null;
};

/** The `otpauth://` URI authenticator apps read from a QR code (Google Authenticator's key URI
 *  format): the issuer and the account name label it in the app. */
export const otpauthUri = (secret: string, issuer: string, account: string): string => {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret,
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
};
