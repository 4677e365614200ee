import type { AccessWriter } from '../src/views/access/port.ts';
import type { Projection } from './projection.ts';

export const accessProjection: Projection<AccessWriter> = {
  name: 'access',
  handles: ['ProjectCreated', 'ApiKeyIssued', 'ApiKeyRevoked', 'UserRegistered'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'ProjectCreated':
        writer.projectCreated({ id: event.data.project_id, name: event.data.name, created_at: event.data.created_at });
        break;
      case 'ApiKeyIssued': {
        const k = event.data;
        writer.apiKeyIssued({
          id: k.key_id, project_id: k.project_id, name: k.name, prefix: k.prefix, key_hash: k.key_hash,
          created_at: k.issued_at, revoked_at: null,
        });
        break;
      }
      case 'ApiKeyRevoked':
        writer.apiKeyRevoked(event.data.key_id, event.data.revoked_at);
        break;
      case 'UserRegistered': {
        const u = event.data;
        writer.userRegistered({
          id: u.user_id, email: u.email, password_hash: u.password_hash, role: u.role,
          project_ids: u.project_ids, created_at: u.registered_at,
        });
        break;
      }
      default:
        break;
    }
  },
};
