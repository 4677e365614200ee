import { uptimeHourOf } from '../src/domain/monitor.ts';
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
        const { monitor_id, created_at, ...settings } = event.data;
        writer.created({
          ...settings,
          id: monitor_id,
          status: 'PENDING',
          status_since: null,
          last_checked_at: null,
          last_status_code: null,
          last_response_ms: null,
          last_error: null,
          created_at,
          updated_at: created_at,
        });
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
        const c = event.data;
        writer.checked(
          c.monitor_id,
          {
            checked_at: c.checked_at,
            status_code: c.status_code ?? null,
            response_ms: c.response_ms,
            ok: c.ok,
            error: c.error ?? null,
          },
          recorded.position,
        );
        writer.counted(c.monitor_id, uptimeHourOf(c.checked_at), c.ok, recorded.position);
        break;
      }
      default:
        break;
    }
  },
};
