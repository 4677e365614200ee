import * as t from 'io-ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** A user's second factors (docs/security.md): a TOTP secret (sealed: encrypted with a key the
 *  log does not hold), recovery codes (SHA-256 of each), passkeys (WebAuthn public keys). Their
 *  stream is the user's `factors-{id}`, apart from the account's own, so that a sign-in's use of
 *  a code never races a change of role. The uses are facts too: a TOTP step or a WebAuthn
 *  challenge is taken once, and the stream is where every API process sees that. */

export const SecondFactorRequirement = t.keyof({ none: null, admins: null, everyone: null }, 'SecondFactorRequirement');
export type SecondFactorRequirement = t.TypeOf<typeof SecondFactorRequirement>;

export const factorEvents = {
  TotpEnrolled: t.type({ user_id: t.string, secret_sealed: t.string, enrolled_at: t.string }),
  TotpUsed: t.type({ user_id: t.string, step: t.number, used_at: t.string }),
  TotpRemoved: t.type({ user_id: t.string, removed_at: t.string }),
  RecoveryCodesGenerated: t.type({ user_id: t.string, code_hashes: t.array(t.string), generated_at: t.string }),
  RecoveryCodeUsed: t.type({ user_id: t.string, code_hash: t.string, used_at: t.string }),
  PasskeyRegistered: t.type({
    user_id: t.string,
    passkey_id: t.string,
    credential_id: t.string,
    public_key: t.string,
    counter: t.number,
    transports: t.array(t.string),
    name: t.string,
    registered_at: t.string,
  }),
  PasskeyRenamed: t.type({ user_id: t.string, passkey_id: t.string, name: t.string, renamed_at: t.string }),
  PasskeyUsed: t.type({
    user_id: t.string,
    passkey_id: t.string,
    counter: t.number,
    challenge: t.string,
    used_at: t.string,
  }),
  PasskeyRemoved: t.type({ user_id: t.string, passkey_id: t.string, removed_at: t.string }),
  /** The deployment's rule (stream `settings-second-factor`): who must have a second factor. */
  SecondFactorPolicySet: t.type({ require: SecondFactorRequirement, set_at: t.string }),
} as const;

/** Every type above: none is a project's record. */
export const FACTOR_EVENT_TYPES = [
  'TotpEnrolled',
  'TotpUsed',
  'TotpRemoved',
  'RecoveryCodesGenerated',
  'RecoveryCodeUsed',
  'PasskeyRegistered',
  'PasskeyRenamed',
  'PasskeyUsed',
  'PasskeyRemoved',
  'SecondFactorPolicySet',
] as const satisfies readonly (keyof typeof factorEvents)[];

export interface PasskeyState {
  readonly id: string;
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

export interface FactorsState {
  readonly totp: { readonly sealed: string; readonly lastStep: number | null } | null;
  /** The hashes of the recovery codes not used yet. */
  readonly recoveryCodes: readonly string[];
  readonly passkeys: readonly PasskeyState[];
  /** The WebAuthn challenges already answered, newest last: a signed assertion is taken once. */
  readonly usedChallenges: readonly string[];
}

export const initialFactors: FactorsState = { totp: null, recoveryCodes: [], passkeys: [], usedChallenges: [] };

/** Challenges live minutes; the last few hundred answered cover them many times over. */
const CHALLENGES_KEPT = 200;

export const evolveFactors = (state: FactorsState, event: DomainEvent): FactorsState => {
  switch (event.type) {
    case 'TotpEnrolled':
      return { ...state, totp: { sealed: event.data.secret_sealed, lastStep: null } };
    case 'TotpUsed':
      return state.totp ? { ...state, totp: { ...state.totp, lastStep: event.data.step } } : state;
    case 'TotpRemoved':
      return { ...state, totp: null };
    case 'RecoveryCodesGenerated':
      return { ...state, recoveryCodes: event.data.code_hashes };
    case 'RecoveryCodeUsed':
      return { ...state, recoveryCodes: state.recoveryCodes.filter((h) => h !== event.data.code_hash) };
    case 'PasskeyRegistered': {
      const { passkey_id, credential_id, public_key, counter, transports } = event.data;
      const passkey = { id: passkey_id, credentialId: credential_id, publicKey: public_key, counter, transports };
      return { ...state, passkeys: [...state.passkeys, passkey] };
    }
    case 'PasskeyUsed':
      return {
        ...state,
        passkeys: state.passkeys.map((p) =>
          p.id === event.data.passkey_id ? { ...p, counter: event.data.counter } : p,
        ),
        usedChallenges: [...state.usedChallenges, event.data.challenge].slice(-CHALLENGES_KEPT),
      };
    case 'PasskeyRemoved':
      return { ...state, passkeys: state.passkeys.filter((p) => p.id !== event.data.passkey_id) };
    default:
      return state;
  }
};

/** `keepOne`: the deployment's policy requires this user to have a second factor, so the last
 *  one is not removed (409). */
export type FactorsCommand =
  | { type: 'EnrolTotp'; user_id: string; secret_sealed: string; at: string }
  | { type: 'UseTotp'; user_id: string; step: number; at: string }
  | { type: 'RemoveTotp'; user_id: string; keepOne: boolean; at: string }
  | { type: 'GenerateRecoveryCodes'; user_id: string; code_hashes: string[]; at: string }
  | { type: 'UseRecoveryCode'; user_id: string; code_hash: string; at: string }
  | {
      type: 'RegisterPasskey';
      user_id: string;
      passkey_id: string;
      credential_id: string;
      public_key: string;
      counter: number;
      transports: string[];
      name: string;
      at: string;
    }
  | { type: 'RenamePasskey'; user_id: string; passkey_id: string; name: string; at: string }
  | { type: 'UsePasskey'; user_id: string; passkey_id: string; counter: number; challenge: string; at: string }
  | { type: 'RemovePasskey'; user_id: string; passkey_id: string; keepOne: boolean; at: string }
  /** An admin's, for a user who lost their factors: every factor and code goes, as the user's own
   *  removals would record it, so that every reader of the stream already knows the facts. */
  | { type: 'ResetFactors'; user_id: string; at: string };

const refused = (message: string) => new DomainError('unauthorized', message);

const lastFactor = () =>
  new DomainError('conflict', 'a second factor is required for this account: add another before removing this one');

const passkeyOf = (state: FactorsState, id: string): PasskeyState => {
  const found = state.passkeys.find((p) => p.id === id);
  if (!found) throw notFound('passkey');
  return found;
};

export const factorsDecider: Decider<FactorsState, FactorsCommand> = {
  initialState: initialFactors,
  evolve: evolveFactors,
  decide(command, state) {
    const user_id = command.user_id;
    switch (command.type) {
      case 'EnrolTotp':
        if (state.totp) throw new DomainError('conflict', 'an authenticator app is enrolled already: remove it first');
        return [
          { type: 'TotpEnrolled', data: { user_id, secret_sealed: command.secret_sealed, enrolled_at: command.at } },
        ];
      case 'UseTotp':
        if (!state.totp) throw refused('no authenticator app is enrolled');
        if (state.totp.lastStep !== null && command.step <= state.totp.lastStep)
          throw refused('this code was used already: wait for the next one');
        return [{ type: 'TotpUsed', data: { user_id, step: command.step, used_at: command.at } }];
      case 'RemoveTotp':
        if (!state.totp) throw notFound('authenticator app');
        if (command.keepOne && state.passkeys.length === 0) throw lastFactor();
        return [{ type: 'TotpRemoved', data: { user_id, removed_at: command.at } }];
      case 'GenerateRecoveryCodes':
        return [
          {
            type: 'RecoveryCodesGenerated',
            data: { user_id, code_hashes: command.code_hashes, generated_at: command.at },
          },
        ];
      case 'UseRecoveryCode':
        if (!state.recoveryCodes.includes(command.code_hash)) throw refused('wrong or used recovery code');
        return [{ type: 'RecoveryCodeUsed', data: { user_id, code_hash: command.code_hash, used_at: command.at } }];
      case 'RegisterPasskey': {
        const { passkey_id, credential_id, public_key, counter, transports, name, at } = command;
        if (state.passkeys.some((p) => p.credentialId === credential_id))
          throw new DomainError('conflict', 'this passkey is registered already');
        return [
          {
            type: 'PasskeyRegistered',
            data: { user_id, passkey_id, credential_id, public_key, counter, transports, name, registered_at: at },
          },
        ];
      }
      case 'RenamePasskey':
        passkeyOf(state, command.passkey_id);
        return [
          {
            type: 'PasskeyRenamed',
            data: { user_id, passkey_id: command.passkey_id, name: command.name, renamed_at: command.at },
          },
        ];
      case 'UsePasskey': {
        const passkey = passkeyOf(state, command.passkey_id);
        if (state.usedChallenges.includes(command.challenge)) throw refused('this passkey answer was used already');
        // Authenticators that count (RFC: signature counter) must count up; a synced passkey
        // reports 0 always.
        if (command.counter !== 0 && command.counter <= passkey.counter)
          throw refused("the passkey's signature counter went back: it may have been cloned");
        const { passkey_id, counter, challenge, at } = command;
        return [{ type: 'PasskeyUsed', data: { user_id, passkey_id, counter, challenge, used_at: at } }];
      }
      case 'RemovePasskey':
        passkeyOf(state, command.passkey_id);
        if (command.keepOne && state.totp === null && state.passkeys.length === 1) throw lastFactor();
        return [{ type: 'PasskeyRemoved', data: { user_id, passkey_id: command.passkey_id, removed_at: command.at } }];
      case 'ResetFactors': {
        const removed_at = command.at;
        return [
          ...(state.totp ? [{ type: 'TotpRemoved' as const, data: { user_id, removed_at } }] : []),
          ...state.passkeys.map((p) => ({
            type: 'PasskeyRemoved' as const,
            data: { user_id, passkey_id: p.id, removed_at },
          })),
          ...(state.recoveryCodes.length > 0
            ? [
                {
                  type: 'RecoveryCodesGenerated' as const,
                  data: { user_id, code_hashes: [], generated_at: removed_at },
                },
              ]
            : []),
        ];
      }
    }
  },
};

/** Whether the policy asks this role for a second factor. */
export const secondFactorRequired = (policy: SecondFactorRequirement, role: string): boolean =>
  policy === 'everyone' || (policy === 'admins' && role === 'admin');

export interface PolicyState {
  readonly require: SecondFactorRequirement;
}

export const policyDecider: Decider<PolicyState, { type: 'SetPolicy'; require: SecondFactorRequirement; at: string }> =
  {
    initialState: { require: 'none' },
    evolve: (state, event) => (event.type === 'SecondFactorPolicySet' ? { require: event.data.require } : state),
    decide: (command, state) =>
      command.require === state.require
        ? []
        : [{ type: 'SecondFactorPolicySet', data: { require: command.require, set_at: command.at } }],
  };
