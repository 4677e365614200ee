import type { DomainEvent, EventType } from './events.ts';
import type { Change } from './self-audit-status.ts';

/** The `system.access` rows of changes to users' second factors and to the deployment's
 *  policy (self-audit.ts builds the row): what changed, for whom. Never a secret, a code or a
 *  hash: a passkey by its id and name only. A TOTP code's or a passkey's use is a sign-in, which
 *  its login row records; a recovery code's use spends one of ten, so it is a change too. */

export const FACTOR_CHANGES: readonly EventType[] = [
  'TotpEnrolled',
  'TotpRemoved',
  'RecoveryCodesGenerated',
  'RecoveryCodeUsed',
  'PasskeyRegistered',
  'PasskeyRenamed',
  'PasskeyRemoved',
  'SecondFactorPolicySet',
];

const FACTORS = '/v1/auth/factors';

export const factorChangeOf = (event: DomainEvent): Change | null => {
  switch (event.type) {
    case 'TotpEnrolled':
      return {
        action: 'factor.totp_enrolled',
        method: 'POST',
        path: `${FACTORS}/totp/confirm`,
        status: 200,
        details: { user_id: event.data.user_id },
      };
    case 'TotpRemoved':
      return {
        action: 'factor.totp_removed',
        method: 'DELETE',
        path: `${FACTORS}/totp`,
        status: 204,
        details: { user_id: event.data.user_id },
      };
    case 'RecoveryCodesGenerated':
      // None: an admin's reset of the user's factors (DELETE /v1/users/:id/factors).
      if (event.data.code_hashes.length === 0)
        return {
          action: 'factor.recovery_codes_removed',
          method: 'DELETE',
          path: `/v1/users/${event.data.user_id}/factors`,
          status: 204,
          details: { user_id: event.data.user_id },
        };
      return {
        action: 'factor.recovery_codes_generated',
        method: 'POST',
        path: `${FACTORS}/recovery-codes`,
        status: 200,
        details: { user_id: event.data.user_id, codes: event.data.code_hashes.length },
      };
    case 'RecoveryCodeUsed':
      return {
        action: 'factor.recovery_code_used',
        method: 'POST',
        path: '/v1/auth/second-factor',
        status: 200,
        details: { user_id: event.data.user_id },
      };
    case 'PasskeyRegistered': {
      const { user_id, passkey_id, name } = event.data;
      return {
        action: 'factor.passkey_registered',
        method: 'POST',
        path: `${FACTORS}/passkeys`,
        status: 201,
        details: { user_id, passkey_id, name },
      };
    }
    case 'PasskeyRenamed': {
      const { user_id, passkey_id, name } = event.data;
      return {
        action: 'factor.passkey_renamed',
        method: 'PUT',
        path: `${FACTORS}/passkeys/${passkey_id}`,
        status: 200,
        details: { user_id, passkey_id, name },
      };
    }
    case 'PasskeyRemoved': {
      const { user_id, passkey_id } = event.data;
      return {
        action: 'factor.passkey_removed',
        method: 'DELETE',
        path: `${FACTORS}/passkeys/${passkey_id}`,
        status: 204,
        details: { user_id, passkey_id },
      };
    }
    case 'SecondFactorPolicySet':
      return {
        action: 'second_factor_policy.set',
        method: 'PUT',
        path: '/v1/settings/second-factor',
        status: 200,
        details: { require: event.data.require },
      };
    default:
      return null;
  }
};
