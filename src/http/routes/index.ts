import type { RouteDeps } from '../deps.ts';
import type { TableHandlers } from '../operations/operation.ts';
import type { ApiOperations } from '../operations/table.ts';
import { accessHandlers } from './access.ts';
import { anomalySettingsHandlers } from './anomaly-settings.ts';
import { auditHandlers } from './audit.ts';
import { auditorHandlers } from './auditors.ts';
import { channelHandlers } from './channels.ts';
import { deliveryHandlers } from './deliveries.ts';
import { exportHandlers } from './export.ts';
import { healthHandlers } from './health.ts';
import { ingestHandlers } from './ingest.ts';
import { maskingHandlers } from './masking.ts';
import { metricsHandlers } from './metrics.ts';
import { monitorHandlers } from './monitors.ts';
import { otlpHandlers } from './otlp.ts';
import { referenceHandlers } from './reference.ts';
import { retentionHandlers } from './retention.ts';
import { sinkHandlers } from './sinks.ts';
import { statsHandlers } from './stats.ts';
import { publicHandlers } from './public.ts';
import { incidentHandlers } from './incidents.ts';
import { maintenanceHandlers } from './maintenances.ts';
import { statusPageHandlers } from './status-pages.ts';
import { subscriberHandlers, subscriptionHandlers } from './subscriptions.ts';
import { viewerHandlers } from './viewer.ts';
import { factorHandlers } from './factors.ts';
import { sessionHandlers } from './sessions.ts';
import { ssoHandlers } from './sso.ts';

/** One handler for each operation of the table: a missing one fails `tsc`. */
export const apiHandlers: TableHandlers<ApiOperations, RouteDeps> = {
  health: healthHandlers,
  metrics: metricsHandlers,
  reference: referenceHandlers,
  ingest: ingestHandlers,
  otlp: otlpHandlers,
  stats: statsHandlers,
  export: exportHandlers,
  audit: auditHandlers,
  access: accessHandlers,
  factors: factorHandlers,
  sessions: sessionHandlers,
  sso: ssoHandlers,
  viewer: viewerHandlers,
  anomalySettings: anomalySettingsHandlers,
  masking: maskingHandlers,
  retention: retentionHandlers,
  sinks: sinkHandlers,
  monitors: monitorHandlers,
  channels: channelHandlers,
  deliveries: deliveryHandlers,
  statusPages: statusPageHandlers,
  subscribers: subscriberHandlers,
  incidents: incidentHandlers,
  public: publicHandlers,
  subscriptions: subscriptionHandlers,
  maintenances: maintenanceHandlers,
  auditors: auditorHandlers,
};
