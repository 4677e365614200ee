import type { DomainEvent, EventType } from './events.ts';

/** The `system.access` rows of changes to status pages, incidents and maintenance windows
 *  (self-audit.ts builds the row): who published a page, opened an incident or planned a window.
 *  An incident a page opened on its own is a change too, its actor the service. */

export interface Change {
  action: string;
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  status: number;
  details: Record<string, unknown>;
}

export const STATUS_CHANGES: readonly EventType[] = [
  'StatusPageCreated',
  'StatusPageUpdated',
  'StatusPageDeleted',
  'IncidentOpened',
  'IncidentUpdatePosted',
  'IncidentDeleted',
  'MaintenanceScheduled',
  'MaintenanceUpdated',
  'MaintenanceDeleted',
];

export const statusChangeOf = (event: DomainEvent): Change | null => {
  switch (event.type) {
    case 'StatusPageCreated': {
      const { page_id, project_id, slug, published, custom_domain } = event.data;
      return {
        action: 'status_page.created',
        method: 'POST',
        path: '/v1/status-pages',
        status: 201,
        details: { page_id, project_id, slug, published, custom_domain },
      };
    }
    case 'StatusPageUpdated': {
      const { page_id, project_id, changes } = event.data;
      return {
        action: 'status_page.updated',
        method: 'PUT',
        path: `/v1/status-pages/${page_id}`,
        status: 200,
        details: { page_id, project_id, changes },
      };
    }
    case 'StatusPageDeleted': {
      const { page_id, project_id } = event.data;
      return {
        action: 'status_page.deleted',
        method: 'DELETE',
        path: `/v1/status-pages/${page_id}`,
        status: 204,
        details: { page_id, project_id },
      };
    }
    case 'IncidentOpened': {
      const { incident_id, project_id, title, status, impact, monitor_ids, auto } = event.data;
      return {
        action: 'incident.opened',
        method: 'POST',
        path: '/v1/incidents',
        status: 201,
        details: { incident_id, project_id, title, status, impact, monitor_ids, automatic: auto !== undefined },
      };
    }
    case 'IncidentUpdatePosted': {
      const { incident_id, project_id, status, impact } = event.data;
      return {
        action: 'incident.updated',
        method: 'POST',
        path: `/v1/incidents/${incident_id}/updates`,
        status: 201,
        details: { incident_id, project_id, status, ...(impact === undefined ? {} : { impact }) },
      };
    }
    case 'IncidentDeleted': {
      const { incident_id, project_id } = event.data;
      return {
        action: 'incident.deleted',
        method: 'DELETE',
        path: `/v1/incidents/${incident_id}`,
        status: 204,
        details: { incident_id, project_id },
      };
    }
    case 'MaintenanceScheduled': {
      const { maintenance_id, project_id, title, monitor_ids, schedule } = event.data;
      return {
        action: 'maintenance.scheduled',
        method: 'POST',
        path: '/v1/maintenances',
        status: 201,
        details: { maintenance_id, project_id, title, monitor_ids, schedule },
      };
    }
    case 'MaintenanceUpdated': {
      const { maintenance_id, project_id, changes } = event.data;
      return {
        action: 'maintenance.updated',
        method: 'PUT',
        path: `/v1/maintenances/${maintenance_id}`,
        status: 200,
        details: { maintenance_id, project_id, changes },
      };
    }
    case 'MaintenanceDeleted': {
      const { maintenance_id, project_id } = event.data;
      return {
        action: 'maintenance.deleted',
        method: 'DELETE',
        path: `/v1/maintenances/${maintenance_id}`,
        status: 204,
        details: { maintenance_id, project_id },
      };
    }
    default:
      return null;
  }
};
