import { accessOperations } from './access.ts';
import { anomalySettingsOperations } from './anomaly-settings.ts';
import { auditOperations } from './audit.ts';
import { auditorOperations } from './auditors.ts';
import { channelOperations } from './channels.ts';
import { deliveryOperations } from './deliveries.ts';
import { exportOperations } from './export.ts';
import { healthOperations } from './health.ts';
import { type IngestDescription, ingestOperations } from './ingest.ts';
import { maskingOperations } from './masking.ts';
import { metricsOperations } from './metrics.ts';
import { monitorOperations } from './monitors.ts';
import { otlpOperations } from './otlp.ts';
import { referenceOperations } from './reference.ts';
import { retentionOperations } from './retention.ts';
import { sinkOperations } from './sinks.ts';
import { statsOperations } from './stats.ts';
import { publicOperations } from './public.ts';
import { incidentOperations } from './incidents.ts';
import { maintenanceOperations } from './maintenances.ts';
import { statusPageOperations } from './status-pages.ts';
import { subscriberOperations, subscriptionOperations } from './subscriptions.ts';
import { viewerOperations } from './viewer.ts';
import { factorOperations } from './factors.ts';
import { sessionOperations } from './sessions.ts';
import { ssoOperations } from './sso.ts';

/** Every operation of the API, by resource, in the order they are mounted (a static path before
 *  a parametrised one that would take it: `mount` refuses the reverse). The routes
 *  (src/http/routes/, one handler per operation: `tsc` refuses a missing one), the OpenAPI
 *  document (src/http/openapi/document.ts) and the dashboard's client types
 *  (web/src/api/operations.gen.ts) all come from this table. */
export const apiOperations = (description: IngestDescription) => ({
  health: healthOperations,
  metrics: metricsOperations,
  reference: referenceOperations,
  ingest: ingestOperations(description),
  otlp: otlpOperations,
  stats: statsOperations,
  export: exportOperations,
  audit: auditOperations,
  access: accessOperations,
  factors: factorOperations,
  sessions: sessionOperations,
  sso: ssoOperations,
  viewer: viewerOperations,
  anomalySettings: anomalySettingsOperations,
  masking: maskingOperations,
  retention: retentionOperations,
  sinks: sinkOperations,
  monitors: monitorOperations,
  channels: channelOperations,
  deliveries: deliveryOperations,
  statusPages: statusPageOperations,
  subscribers: subscriberOperations,
  incidents: incidentOperations,
  public: publicOperations,
  subscriptions: subscriptionOperations,
  maintenances: maintenanceOperations,
  auditors: auditorOperations,
});

export type ApiOperations = ReturnType<typeof apiOperations>;

/** The paths of the operations a viewer token may call (their cross-origin reads). */
export const viewerPaths = (table: ApiOperations): string[] =>
  Object.values(table).flatMap((group) =>
    Object.values(group as Record<string, { path: string; viewer?: true }>)
      .filter((op) => op.viewer === true)
      .map((op) => op.path),
  );
