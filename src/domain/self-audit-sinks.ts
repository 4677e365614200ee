import type { DomainEvent, EventType } from './events.ts';
import type { Change } from './self-audit-status.ts';

/** The `system.access` rows of changes to log sinks (self-audit.ts builds the row): who made a
 *  sink, where it sends, and who changed or deleted it. Never a secret: only where it connects. */

export const SINK_CHANGES: readonly EventType[] = ['SinkCreated', 'SinkUpdated', 'SinkDeleted'];

export const sinkChangeOf = (event: DomainEvent): Change | null => {
  switch (event.type) {
    case 'SinkCreated': {
      const { sink_id, project_id, target, active, filter } = event.data;
      const where = target.type === 'syslog' ? { host: target.host, port: target.port } : { url: target.url };
      return {
        action: 'sink.created',
        method: 'POST',
        path: `/v1/projects/${project_id}/sinks`,
        status: 201,
        details: { sink_id, project_id, type: target.type, ...where, active, filter },
      };
    }
    case 'SinkUpdated': {
      const { sink_id, project_id, changes } = event.data;
      return {
        action: 'sink.updated',
        method: 'PUT',
        path: `/v1/projects/${project_id}/sinks/${sink_id}`,
        status: 200,
        details: { sink_id, project_id, changes },
      };
    }
    case 'SinkDeleted': {
      const { sink_id, project_id } = event.data;
      return {
        action: 'sink.deleted',
        method: 'DELETE',
        path: `/v1/projects/${project_id}/sinks/${sink_id}`,
        status: 204,
        details: { sink_id, project_id },
      };
    }
    default:
      return null;
  }
};
