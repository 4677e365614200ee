/** The login throttle's rule: failed logins are counted per account (the e-mail, whether or not
 *  a user has it, so a refusal says nothing about which addresses exist) and per client address.
 *  After `accountFailures` failures in a row an account is locked, first for `accountLockSeconds`,
 *  doubling with each further failure up to `accountMaxLockSeconds`; a successful login forgets
 *  its failures. An address may fail `addressFailures` times in `addressWindowSeconds` (a window
 *  that starts at its first failure), whichever accounts it tries; success does not reset it, or
 *  one valid account would let its holder clear the count between guesses at others. */
export interface LoginLimits {
  readonly accountFailures: number;
  readonly accountLockSeconds: number;
  readonly accountMaxLockSeconds: number;
  readonly addressFailures: number;
  readonly addressWindowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  accountFailures: 5,
  accountLockSeconds: 30,
  accountMaxLockSeconds: 900,
  addressFailures: 20,
  addressWindowSeconds: 900,
};

/** An account's failures are forgotten a day after the first of them, if no login succeeds. */
export const ACCOUNT_FAILURES_KEPT_SECONDS = 86_400;

/** How long an account is locked after its `failures`-th failure in a row (0: not locked). */
export const accountLockSeconds = (failures: number, limits: LoginLimits): number =>
  failures < limits.accountFailures
    ? 0
    : Math.min(
        limits.accountLockSeconds * 2 ** Math.min(failures - limits.accountFailures, 30),
        limits.accountMaxLockSeconds,
      );

/** The key an address is counted under: an IPv4 address (also as `::ffff:a.b.c.d`) as it is, an
 *  IPv6 address by its /64 network, the smallest block one client is usually given (counting
 *  each of its 2^64 addresses apart would make the limit worthless). */
export const addressKey = (address: string): string => {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (v4) return v4[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(8 - left.length - right.length, 0)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
};
