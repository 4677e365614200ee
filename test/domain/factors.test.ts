import test from 'ava';
import { DomainError } from '../../src/domain/errors.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { type FactorsCommand, factorsDecider } from '../../src/domain/factors.ts';

/** The factors' decider: what a use takes, and what the policy keeps. */

const user_id = 'u1';
const at = '2026-01-01T00:00:00.000Z';
const fold = (events: DomainEvent[]) => events.reduce(factorsDecider.evolve, factorsDecider.initialState);
const decide = (history: DomainEvent[], command: FactorsCommand) => factorsDecider.decide(command, fold(history));
const refusal = (history: DomainEvent[], command: FactorsCommand) => {
  try {
    decide(history, command);
  } catch (error) {
    return error instanceof DomainError ? error.code : 'other';
  }
  return null;
};

const passkey: DomainEvent = {
  type: 'PasskeyRegistered',
  data: {
    user_id,
    passkey_id: 'p1',
    credential_id: 'c1',
    public_key: 'k',
    counter: 5,
    transports: [],
    name: 'key',
    registered_at: at,
  },
};
const totp: DomainEvent = { type: 'TotpEnrolled', data: { user_id, secret_sealed: 'v1.x', enrolled_at: at } };
const use = (counter: number, challenge: string): FactorsCommand => ({
  type: 'UsePasskey',
  user_id,
  passkey_id: 'p1',
  counter,
  challenge,
  at,
});

test('a passkey answer is taken once, and its counter only goes up (0: an authenticator that does not count)', (t) => {
  const used = decide([passkey], use(6, 'ch1'));
  t.is(used[0]!.type, 'PasskeyUsed');
  t.is(refusal([passkey, ...used], use(7, 'ch1')), 'unauthorized', 'the same challenge again');
  t.is(refusal([passkey, ...used], use(6, 'ch2')), 'unauthorized', 'a counter that did not move');
  t.is(refusal([passkey], use(0, 'ch3')), null, 'a synced passkey counts nothing');
  t.is(refusal([], use(1, 'ch4')), 'not_found');
});

test('a TOTP step is taken once, and never an earlier one', (t) => {
  const used = decide([totp], { type: 'UseTotp', user_id, step: 10, at });
  t.is(refusal([totp, ...used], { type: 'UseTotp', user_id, step: 10, at }), 'unauthorized');
  t.is(refusal([totp, ...used], { type: 'UseTotp', user_id, step: 9, at }), 'unauthorized');
  t.is(refusal([totp, ...used], { type: 'UseTotp', user_id, step: 11, at }), null);
  t.is(refusal([], { type: 'UseTotp', user_id, step: 1, at }), 'unauthorized', 'no app enrolled');
  t.is(refusal([totp], { type: 'EnrolTotp', user_id, secret_sealed: 'v1.y', at }), 'conflict', 'one app at a time');
});

test('the policy keeps the last factor; a second one may go', (t) => {
  t.is(refusal([totp], { type: 'RemoveTotp', user_id, keepOne: true, at }), 'conflict');
  t.is(refusal([totp], { type: 'RemoveTotp', user_id, keepOne: false, at }), null);
  t.is(refusal([totp, passkey], { type: 'RemoveTotp', user_id, keepOne: true, at }), null);
  t.is(refusal([passkey], { type: 'RemovePasskey', user_id, passkey_id: 'p1', keepOne: true, at }), 'conflict');
  t.is(refusal([passkey, totp], { type: 'RemovePasskey', user_id, passkey_id: 'p1', keepOne: true, at }), null);
});

test('recovery codes: each hash once; new codes replace the old', (t) => {
  const codes: DomainEvent = {
    type: 'RecoveryCodesGenerated',
    data: { user_id, code_hashes: ['a', 'b'], generated_at: at },
  };
  const used = decide([codes], { type: 'UseRecoveryCode', user_id, code_hash: 'a', at });
  t.is(refusal([codes, ...used], { type: 'UseRecoveryCode', user_id, code_hash: 'a', at }), 'unauthorized');
  const renewed: DomainEvent = {
    type: 'RecoveryCodesGenerated',
    data: { user_id, code_hashes: ['c'], generated_at: at },
  };
  t.is(refusal([codes, renewed], { type: 'UseRecoveryCode', user_id, code_hash: 'b', at }), 'unauthorized');
});
