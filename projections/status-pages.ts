import type { StatusPagesWriter } from '../src/views/status-pages/port.ts';
import type { Projection } from './projection.ts';

/** Status pages, and the version of each page's public answers: it moves with the page's own
 *  changes and with every event of its project that a page shows. */
export const statusPagesProjection: Projection<StatusPagesWriter> = {
  name: 'status-pages',
  handles: [
    'StatusPageCreated',
    'StatusPageUpdated',
    'StatusPageDeleted',
    'MonitorWentDown',
    'MonitorCameUp',
    'MonitorStatusEstablished',
    'MonitorUpdated',
    'MonitorDeleted',
    'CheckRecorded',
    'IncidentOpened',
    'IncidentUpdatePosted',
    'IncidentDeleted',
    'MaintenanceScheduled',
    'MaintenanceUpdated',
    'MaintenanceDeleted',
    'MaintenanceStarted',
    'MaintenanceEnded',
  ],
  apply(event, recorded, writer) {
    const { position } = recorded;
    switch (event.type) {
      case 'StatusPageCreated': {
        const d = event.data;
        writer.created(
          {
            id: d.page_id,
            project_id: d.project_id,
            slug: d.slug,
            title: d.title,
            description: d.description,
            groups: d.groups,
            published: d.published,
            show_uptime_days: d.show_uptime_days,
            custom_domain: d.custom_domain,
            auto_incidents: d.auto_incidents,
            ...(d.managed_by === undefined ? {} : { managed_by: d.managed_by }),
            created_at: d.created_at,
            updated_at: d.created_at,
          },
          position,
        );
        break;
      }
      case 'StatusPageUpdated':
        writer.updated(event.data.page_id, event.data.changes, event.data.updated_at, position);
        break;
      case 'StatusPageDeleted':
        writer.deleted(event.data.page_id);
        break;
      case 'MonitorWentDown':
      case 'MonitorCameUp':
      case 'MonitorStatusEstablished':
      case 'MonitorUpdated':
      case 'MonitorDeleted':
        writer.touched(event.data.project_id, event.data.monitor_id, position);
        break;
      case 'CheckRecorded':
        // The most frequent event of the log: only a failure changes what a page shows (its
        // day's bar); an OK check shows up at the next failure or transition.
        if (!event.data.ok) writer.touched(event.data.project_id, event.data.monitor_id, position);
        break;
      case 'IncidentOpened': {
        const { project_id, monitor_ids } = event.data;
        if (monitor_ids.length === 0) writer.touched(project_id, null, position);
        for (const monitorId of monitor_ids) writer.touched(project_id, monitorId, position);
        break;
      }
      case 'IncidentUpdatePosted':
      case 'IncidentDeleted':
      case 'MaintenanceScheduled':
      case 'MaintenanceUpdated':
      case 'MaintenanceDeleted':
      case 'MaintenanceStarted':
      case 'MaintenanceEnded':
        writer.touched(event.data.project_id, null, position);
        break;
      default:
        break;
    }
  },
};
