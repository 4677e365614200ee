import { scopesOf } from '../src/domain/api-keys.ts';
import type { AccessWriter } from '../src/views/access/port.ts';
import type { Projection } from './projection.ts';

export const accessProjection: Projection<AccessWriter> = {
  name: 'access',
  handles: [
    'ProjectCreated',
    'ApiKeyIssued',
    'ApiKeyRestricted',
    'ApiKeyRevoked',
    'ApiKeyUsed',
    'UserRegistered',
    'UserAccessChanged',
    'UserDisabled',
    'UserEnabled',
    'UserPasswordChanged',
    'UserPasswordRehashed',
  ],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'ProjectCreated':
        writer.projectCreated({ id: event.data.project_id, name: event.data.name, created_at: event.data.created_at });
        break;
      case 'ApiKeyIssued': {
        const k = event.data;
        writer.apiKeyIssued({
          id: k.key_id,
          project_id: k.project_id,
          name: k.name,
          prefix: k.prefix,
          key_hash: k.key_hash,
          created_at: k.issued_at,
          revoked_at: null,
          scopes: scopesOf(k.scopes),
          expires_at: k.expires_at ?? null,
          allowed_origins: k.allowed_origins ?? [],
          rate_limit: k.rate_limit ?? null,
          last_used_at: null,
        });
        break;
      }
      case 'ApiKeyRestricted':
        writer.apiKeyRestricted(event.data.key_id, {
          scopes: scopesOf(event.data.scopes),
          expires_at: event.data.expires_at ?? null,
          allowed_origins: event.data.allowed_origins,
          rate_limit: event.data.rate_limit,
        });
        break;
      case 'ApiKeyRevoked':
        writer.apiKeyRevoked(event.data.key_id, event.data.revoked_at);
        break;
      case 'ApiKeyUsed':
        writer.apiKeyUsed(event.data.key_id, event.data.used_at);
        break;
      case 'UserRegistered': {
        const u = event.data;
        writer.userRegistered({
          id: u.user_id,
          email: u.email,
          password_hash: u.password_hash,
          role: u.role,
          project_ids: u.project_ids,
          disabled: false,
          tokens_valid_after: null,
          created_at: u.registered_at,
        });
        break;
      }
      // A change of access, disabling and a new password end every token issued before them;
      // enabling does not bring those back, and a rehash (the same password) leaves them valid.
      case 'UserAccessChanged':
        writer.userChanged(event.data.user_id, {
          role: event.data.role,
          project_ids: event.data.project_ids,
          tokens_valid_after: event.data.changed_at,
        });
        break;
      case 'UserDisabled':
        writer.userChanged(event.data.user_id, { disabled: true, tokens_valid_after: event.data.disabled_at });
        break;
      case 'UserEnabled':
        writer.userChanged(event.data.user_id, { disabled: false });
        break;
      case 'UserPasswordChanged':
        writer.userChanged(event.data.user_id, {
          password_hash: event.data.password_hash,
          tokens_valid_after: event.data.changed_at,
        });
        break;
      case 'UserPasswordRehashed':
        writer.userChanged(event.data.user_id, { password_hash: event.data.password_hash });
        break;
      default:
        break;
    }
  },
};
