import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const factorsContract = (withModels: WithModels): void => {
  withModels(
    "factors: a user's TOTP, recovery codes used one at a time, passkeys by credential, the policy; replays are no-ops",
    async (t, m) => {
      const [user, other, pk1, pk2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const at = '2026-01-01T00:00:00.000Z';
      t.deepEqual(await m.factors.factorsOf(user), {
        user_id: user,
        totp_enrolled_at: null,
        recovery_codes_left: 0,
        recovery_codes_generated_at: null,
        passkeys: [],
      });
      t.deepEqual(await m.factors.policy(), { require: 'none', updated_at: null });
      const batch = [recorded()];
      const apply = () =>
        m.stores.factors.commit(batch, (_r, w) => {
          w.totpEnrolled(user, at);
          w.recoveryCodesGenerated(user, ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)], at);
          w.recoveryCodeUsed(user, 'b'.repeat(64));
          w.passkeyRegistered({
            passkey_id: pk1,
            user_id: user,
            credential_id: 'cred-1',
            transports: ['internal'],
            name: 'laptop',
            created_at: at,
          });
          w.passkeyRegistered({
            passkey_id: pk2,
            user_id: user,
            credential_id: 'cred-2',
            transports: [],
            name: 'key',
            created_at: '2026-01-02T00:00:00.000Z',
          });
          w.passkeyRenamed(pk1, 'work laptop');
          w.passkeyUsed(pk1, '2026-01-03T00:00:00.000Z');
          w.policySet('admins', at);
        });
      await apply();
      await apply();
      t.deepEqual(await m.factors.factorsOf(user), {
        user_id: user,
        totp_enrolled_at: at,
        recovery_codes_left: 2,
        recovery_codes_generated_at: at,
        passkeys: [
          { id: pk1, name: 'work laptop', created_at: at, last_used_at: '2026-01-03T00:00:00.000Z' },
          { id: pk2, name: 'key', created_at: '2026-01-02T00:00:00.000Z', last_used_at: null },
        ],
      });
      t.deepEqual(await m.factors.passkeyByCredentialId('cred-2'), {
        passkey_id: pk2,
        user_id: user,
        credential_id: 'cred-2',
        transports: [],
      });
      t.is(await m.factors.passkeyByCredentialId('cred-3'), null);
      t.deepEqual(
        (await m.factors.credentialsOf(user)).map((c) => c.credential_id),
        ['cred-1', 'cred-2'],
      );
      t.deepEqual(await m.factors.credentialsOf(other), []);
      t.deepEqual(await m.factors.policy(), { require: 'admins', updated_at: at });

      await m.stores.factors.commit([recorded()], (_r, w) => {
        w.totpRemoved(user);
        w.passkeyRemoved(pk1);
        w.recoveryCodesGenerated(user, ['d'.repeat(64)], '2026-01-04T00:00:00.000Z');
      });
      const after = await m.factors.factorsOf(user);
      t.is(after.totp_enrolled_at, null);
      t.is(after.recovery_codes_left, 1);
      t.deepEqual(
        after.passkeys.map((p) => p.id),
        [pk2],
      );
      await m.stores.factors.reset();
      t.deepEqual((await m.factors.factorsOf(user)).passkeys, []);
      t.is((await m.factors.policy()).require, 'none');
    },
  );
};
