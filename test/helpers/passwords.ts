import { Passwords, type ScryptParams } from '../../src/commands/passwords.ts';

/** The scrypt cost of the in-process test servers and command tests: N=2^10 (1 MiB, about a
 *  millisecond) instead of the production N=2^17 (128 MiB, up to a second on a small machine), so
 *  the hundreds of registrations and logins of the suite do not each cost that second. The cost
 *  is a parameter of the composition (`openRuntime`'s `scrypt`), not of the configuration: a
 *  deployment cannot lower it. test/commands/passwords.test.ts and the CLI tests (real
 *  processes) run at the production cost. */
export const TEST_SCRYPT: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

export const testPasswords = new Passwords(TEST_SCRYPT);
