import type { AnomaliesWriter } from '../src/views/anomalies/port.ts';
import type { Projection } from './projection.ts';

/** Per-project anomaly settings and the alerts still open, for the scan and the settings API. */
export const anomaliesProjection: Projection<AnomaliesWriter> = {
  name: 'anomalies',
  handles: ['AnomalySettingsUpdated', 'AnomalyDetected', 'AnomalyCleared'],
  apply(event, _recorded, writer) {
    switch (event.type) {
      case 'AnomalySettingsUpdated':
        writer.settingsUpdated(event.data.project_id, event.data.changes, event.data.updated_at);
        break;
      case 'AnomalyDetected': {
        const { alert_id, project_id, rule, subject, detected_at } = event.data;
        writer.detected({ alert_id, project_id, rule, subject, detected_at });
        break;
      }
      case 'AnomalyCleared':
        writer.cleared(event.data.project_id, event.data.alert_id);
        break;
      default:
        break;
    }
  },
};
