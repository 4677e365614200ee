import type { AnomalyWindowsWriter } from '../src/views/anomaly-windows/port.ts';
import type { Projection } from './projection.ts';

/** The anomaly scan's windows: each http event counted into its service's 10-second bucket (and
 *  its identifier's, for a 401). */
export const anomalyWindowsProjection: Projection<AnomalyWindowsWriter> = {
  name: 'anomaly-windows',
  handles: ['AuditEventRecorded'],
  apply(event, recorded, writer) {
    if (event.type !== 'AuditEventRecorded' || event.data.event_type !== 'http') return;
    const e = event.data;
    writer.add({
      project_id: e.project_id, service_name: e.service_name, environment: e.environment, identifier: e.identifier,
      method: e.method, status_code: e.status_code, timestamp: Date.parse(e.timestamp),
    }, recorded.position);
  },
};
