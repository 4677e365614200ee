import type { MaintenancesWriter } from '../src/views/maintenances/port.ts';
import type { Projection } from './projection.ts';

/** Maintenance windows (src/views/maintenances), with the occurrence the maintenance clock last
 *  recorded as open: what the API, status pages and monitor answers read. */
export const maintenancesProjection: Projection<MaintenancesWriter> = {
  name: 'maintenances',
  handles: [
    'MaintenanceScheduled',
    'MaintenanceUpdated',
    'MaintenanceDeleted',
    'MaintenanceStarted',
    'MaintenanceEnded',
  ],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'MaintenanceScheduled': {
        const d = event.data;
        writer.scheduled({
          id: d.maintenance_id,
          project_id: d.project_id,
          title: d.title,
          description: d.description,
          monitor_ids: d.monitor_ids,
          schedule: d.schedule,
          ...(d.managed_by === undefined ? {} : { managed_by: d.managed_by }),
          open: null,
          created_at: d.created_at,
          updated_at: d.created_at,
        });
        break;
      }
      case 'MaintenanceUpdated':
        writer.updated(event.data.maintenance_id, event.data.changes, event.data.updated_at);
        break;
      case 'MaintenanceDeleted':
        writer.deleted(event.data.maintenance_id);
        break;
      case 'MaintenanceStarted':
        writer.started(event.data.maintenance_id, {
          start: event.data.occurrence_start,
          end: event.data.occurrence_end,
        });
        break;
      case 'MaintenanceEnded':
        writer.ended(event.data.maintenance_id);
        break;
      default:
        break;
    }
  },
};
