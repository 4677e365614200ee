import type { SessionsWriter } from '../src/views/sessions/port.ts';
import type { Projection } from './projection.ts';

export const sessionsProjection: Projection<SessionsWriter> = {
  name: 'sessions',
  handles: ['SessionStarted', 'SessionRefreshed', 'SessionEnded'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'SessionStarted': {
        const s = event.data;
        writer.started({
          id: s.session_id,
          user_id: s.user_id,
          kind: s.kind,
          method: s.method,
          address: s.address,
          user_agent: s.user_agent,
          created_at: s.started_at,
          last_used_at: s.started_at,
          expires_at: s.expires_at,
          ended_at: null,
          ended_reason: null,
        });
        break;
      }
      case 'SessionRefreshed':
        writer.refreshed(event.data.session_id, event.data.refreshed_at, event.data.address, event.data.user_agent);
        break;
      case 'SessionEnded':
        writer.ended(event.data.session_id, event.data.ended_at, event.data.reason);
        break;
      default:
        break;
    }
  },
};
