import { isFailedLogin } from '../src/domain/self-audit.ts';
import type { AnomalyWindowsWriter } from '../src/views/anomaly-windows/port.ts';
import type { Projection } from './projection.ts';

/** The anomaly scan's windows: each http event counted into its service's 10-second bucket (and
 *  its identifier's, for a 401), and each failed login into watchlog (a 401, or a 429 from the
 *  throttle) as a 401 of the e-mail tried, so brute_force sees guessing at watchlog itself. */
export const anomalyWindowsProjection: Projection<AnomalyWindowsWriter> = {
  name: 'anomaly-windows',
  handles: ['AuditEventRecorded'],
  apply(event, recorded, writer) {
    if (event.type !== 'AuditEventRecorded') return;
    const e = event.data;
    const failedLogin = isFailedLogin(e);
    if (e.event_type !== 'http' && !failedLogin) return;
    writer.add(
      {
        project_id: e.project_id,
        service_name: e.service_name,
        environment: e.environment,
        identifier: e.identifier,
        method: e.method,
        status_code: failedLogin ? 401 : e.status_code,
        timestamp: Date.parse(e.timestamp),
      },
      recorded.position,
    );
  },
};
