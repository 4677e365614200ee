import type { MonitorsWriter } from '../src/views/monitors/port.ts';
import type { Projection } from './projection.ts';

export const monitorsProjection: Projection<MonitorsWriter> = {
  name: 'monitors',
  handles: [
    'MonitorCreated',
    'MonitorUpdated',
    'MonitorDeleted',
    'MonitorStatusEstablished',
    'MonitorWentDown',
    'MonitorCameUp',
    'CheckRecorded',
  ],
  apply(event, recorded, writer) {
    switch (event.type) {
      case 'MonitorCreated': {
        const { monitor_id, created_at, heartbeat_token_hash, ...settings } = event.data;
        writer.created(
          {
            ...settings,
            type: settings.type ?? 'http',
            id: monitor_id,
            status: 'PENDING',
            status_since: null,
            last_checked_at: null,
            last_status_code: null,
            last_response_ms: null,
            last_error: null,
            last_certificate: null,
            created_at,
            updated_at: created_at,
          },
          heartbeat_token_hash ?? null,
        );
        break;
      }
      case 'MonitorUpdated':
        writer.updated(event.data.monitor_id, event.data.changes, event.data.updated_at);
        break;
      case 'MonitorDeleted':
        writer.deleted(event.data.monitor_id);
        break;
      case 'MonitorStatusEstablished':
        writer.status(event.data.monitor_id, 'UP', event.data.checked_at);
        break;
      case 'MonitorWentDown':
        writer.status(event.data.monitor_id, 'DOWN', event.data.went_down_at);
        break;
      case 'MonitorCameUp':
        writer.status(event.data.monitor_id, 'UP', event.data.came_up_at);
        break;
      case 'CheckRecorded': {
        const { monitor_id, project_id: _, status_code, error, in_maintenance, ...check } = event.data;
        writer.checked(
          monitor_id,
          {
            ...check,
            status_code: status_code ?? null,
            error: error ?? null,
            ...(in_maintenance ? { in_maintenance } : {}),
          },
          recorded.position,
        );
        // A check under a maintenance window is history, not uptime: planned work is no outage.
        if (!in_maintenance) writer.counted(monitor_id, check, recorded.position);
        break;
      }
      default:
        break;
    }
  },
};
