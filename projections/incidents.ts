import type { IncidentsWriter } from '../src/views/incidents/port.ts';
import type { Projection } from './projection.ts';

export const incidentsProjection: Projection<IncidentsWriter> = {
  name: 'incidents',
  handles: ['IncidentOpened', 'IncidentUpdatePosted', 'IncidentDeleted'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'IncidentOpened': {
        const d = event.data;
        writer.opened({
          id: d.incident_id,
          project_id: d.project_id,
          title: d.title,
          status: d.status,
          impact: d.impact,
          monitor_ids: d.monitor_ids,
          auto: d.auto ?? null,
          created_at: d.opened_at,
          updated_at: d.opened_at,
          resolved_at: d.status === 'resolved' ? d.opened_at : null,
          // The opening message is the first update; it states the impact the incident opened with.
          updates: [{ id: d.update_id, status: d.status, message: d.message, impact: d.impact, at: d.opened_at }],
        });
        break;
      }
      case 'IncidentUpdatePosted': {
        const d = event.data;
        writer.updated(d.incident_id, {
          id: d.update_id,
          status: d.status,
          message: d.message,
          impact: d.impact ?? null,
          at: d.posted_at,
        });
        break;
      }
      case 'IncidentDeleted':
        writer.deleted(event.data.incident_id);
        break;
      default:
        break;
    }
  },
};
