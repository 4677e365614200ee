import test from 'ava';
import { Passwords, SCRYPT_PARAMS } from '../../src/commands/passwords.ts';
import { TEST_SCRYPT, testPasswords } from '../helpers/passwords.ts';

test("the production cost is OWASP's scrypt N=2^17, r=8, p=1, and its hash says so", async (t) => {
  t.deepEqual(SCRYPT_PARAMS, { N: 131_072, r: 8, p: 1 });
  const production = new Passwords();
  const started = performance.now();
  const hash = await production.hash('correct horse battery');
  t.log(`one hash at N=2^17: ${Math.round(performance.now() - started)} ms`);
  t.regex(hash, /^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{86}$/);
  t.true(await production.verify('correct horse battery', hash));
  t.false(production.needsRehash(hash));
});

test('a hash verifies with the parameters it carries; a lower cost asks for a rehash', async (t) => {
  const old = await testPasswords.hash('an old password');
  t.true(old.startsWith(`scrypt$${TEST_SCRYPT.N}$8$1$`));
  const stronger = new Passwords({ N: 2 ** 11, r: 8, p: 1 });
  t.true(await stronger.verify('an old password', old));
  t.false(await stronger.verify('another password', old));
  t.true(stronger.needsRehash(old));
  t.false(testPasswords.needsRehash(old));
  t.false(stronger.needsRehash(await stronger.hash('x')));
  t.true(stronger.needsRehash('not-a-hash'));
  t.false(await stronger.verify('x', 'scrypt$abc$8$1$salt$hash'));
});

test('at most two derivations run at once; the others wait their turn', async (t) => {
  const passwords = new Passwords(TEST_SCRYPT, 2);
  const internals = passwords as unknown as { running: number; waiting: unknown[] };
  const hashing = Promise.all(Array.from({ length: 8 }, (_, i) => passwords.hash(`password ${i}`)));
  // Eight asked at once: two derive, six wait.
  t.is(internals.running, 2);
  t.is(internals.waiting.length, 6);
  let most = internals.running;
  let samples = 0;
  const watch = setInterval(() => {
    samples += 1;
    most = Math.max(most, internals.running);
  }, 0);
  const hashes = await hashing;
  clearInterval(watch);
  t.is(new Set(hashes).size, 8);
  t.is(most, 2, `never more than two while they ran (${samples} samples)`);
  t.is(internals.running, 0);
  t.is(internals.waiting.length, 0);
});
