import type { FactorsWriter } from '../src/views/factors/port.ts';
import type { Projection } from './projection.ts';

/** Users' second factors as lists show them, passkeys by credential id, and the policy. */
export const factorsProjection: Projection<FactorsWriter> = {
  name: 'factors',
  handles: [
    'TotpEnrolled',
    'TotpRemoved',
    'RecoveryCodesGenerated',
    'RecoveryCodeUsed',
    'PasskeyRegistered',
    'PasskeyRenamed',
    'PasskeyUsed',
    'PasskeyRemoved',
    'SecondFactorPolicySet',
  ],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'TotpEnrolled':
        writer.totpEnrolled(event.data.user_id, event.data.enrolled_at);
        break;
      case 'TotpRemoved':
        writer.totpRemoved(event.data.user_id);
        break;
      case 'RecoveryCodesGenerated':
        writer.recoveryCodesGenerated(event.data.user_id, event.data.code_hashes, event.data.generated_at);
        break;
      case 'RecoveryCodeUsed':
        writer.recoveryCodeUsed(event.data.user_id, event.data.code_hash);
        break;
      case 'PasskeyRegistered': {
        const { passkey_id, user_id, credential_id, transports, name, registered_at } = event.data;
        writer.passkeyRegistered({ passkey_id, user_id, credential_id, transports, name, created_at: registered_at });
        break;
      }
      case 'PasskeyRenamed':
        writer.passkeyRenamed(event.data.passkey_id, event.data.name);
        break;
      case 'PasskeyUsed':
        writer.passkeyUsed(event.data.passkey_id, event.data.used_at);
        break;
      case 'PasskeyRemoved':
        writer.passkeyRemoved(event.data.passkey_id);
        break;
      case 'SecondFactorPolicySet':
        writer.policySet(event.data.require, event.data.set_at);
        break;
      default:
        break;
    }
  },
};
