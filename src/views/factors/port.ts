import type { SecondFactorRequirement } from '../../domain/factors.ts';

/** Users' second factors as the API shows them (never a secret or a hash), passkeys by their
 *  credential id for a sign-in that names no user, and the deployment's policy. The factors'
 *  own streams decide every use; this serves lists, the login's "is a factor needed" and the
 *  passkey lookup. */

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface UserFactorsView {
  user_id: string;
  totp_enrolled_at: string | null;
  recovery_codes_left: number;
  recovery_codes_generated_at: string | null;
  passkeys: PasskeyView[];
}

/** What a passkey sign-in needs to know before it loads the user's stream. */
export interface PasskeyCredential {
  passkey_id: string;
  user_id: string;
  /** base64url, as WebAuthn names it. */
  credential_id: string;
  transports: string[];
}

export interface SecondFactorPolicy {
  require: SecondFactorRequirement;
  updated_at: string | null;
}

export interface FactorsWriter {
  totpEnrolled(userId: string, at: string): void;
  totpRemoved(userId: string): void;
  /** Replaces the user's codes; `codeHashes` identify them for `recoveryCodeUsed`. */
  recoveryCodesGenerated(userId: string, codeHashes: readonly string[], at: string): void;
  recoveryCodeUsed(userId: string, codeHash: string): void;
  passkeyRegistered(p: PasskeyCredential & { name: string; created_at: string }): void;
  passkeyRenamed(passkeyId: string, name: string): void;
  passkeyUsed(passkeyId: string, at: string): void;
  passkeyRemoved(passkeyId: string): void;
  policySet(require: SecondFactorRequirement, at: string): void;
}

export interface FactorsQueries {
  /** A user without any factor has an empty view. Passkeys oldest first. */
  factorsOf(userId: string): Promise<UserFactorsView>;
  passkeyByCredentialId(credentialId: string): Promise<PasskeyCredential | null>;
  /** The user's passkeys' credentials, to name them in a challenge. */
  credentialsOf(userId: string): Promise<PasskeyCredential[]>;
  /** `none` until an admin sets one. */
  policy(): Promise<SecondFactorPolicy>;
}

export const emptyFactors = (userId: string): UserFactorsView => ({
  user_id: userId,
  totp_enrolled_at: null,
  recovery_codes_left: 0,
  recovery_codes_generated_at: null,
  passkeys: [],
});
