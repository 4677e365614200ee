import { accessContract } from './read-models/access.ts';
import { anomaliesContract } from './read-models/anomalies.ts';
import { anomalyWindowsContract } from './read-models/anomaly-windows.ts';
import { auditEventsContract } from './read-models/audit-events.ts';
import { auditSearchContract } from './read-models/audit-search.ts';
import { channelsContract } from './read-models/channels.ts';
import { deliveriesContract } from './read-models/deliveries.ts';
import { derivedSessionsContract } from './read-models/derived-sessions.ts';
import { incidentsContract } from './read-models/incidents.ts';
import { modelsTest, type OpenedReadModels, type ReadModelsContractOptions } from './read-models/harness.ts';
import { maintenancesContract } from './read-models/maintenances.ts';
import { maskingContract } from './read-models/masking.ts';
import { monitorUptimeDaysContract } from './read-models/monitor-uptime-days.ts';
import { monitorsContract } from './read-models/monitors.ts';
import { orphansContract } from './read-models/orphans.ts';
import { otlpContract } from './read-models/otlp.ts';
import { statsContract } from './read-models/stats.ts';
import { statusPagesContract } from './read-models/status-pages.ts';
import { sinksContract } from './read-models/sinks.ts';
import { sessionsContract } from './read-models/sessions.ts';
import { ssoProvidersContract } from './read-models/sso-providers.ts';
import { subscribersContract } from './read-models/subscribers.ts';
import { treeContract } from './read-models/tree.ts';
import { factorsContract } from './read-models/factors.ts';

/** The read-model contract, for every read-store adapter: each read model's suite
 *  (read-models/<model>.ts), every test on empty read models of its own from `open`. */
export const readModelsContract = (
  adapter: string,
  open: () => Promise<OpenedReadModels>,
  options: ReadModelsContractOptions = {},
): void => {
  const withModels = modelsTest(adapter, open);
  auditEventsContract(withModels, adapter, options);
  auditSearchContract(withModels);
  derivedSessionsContract(withModels);
  statsContract(withModels);
  orphansContract(withModels);
  accessContract(withModels);
  monitorsContract(withModels);
  channelsContract(withModels);
  deliveriesContract(withModels);
  anomalyWindowsContract(withModels);
  anomaliesContract(withModels);
  treeContract(withModels);
  maskingContract(withModels);
  otlpContract(withModels);
  monitorUptimeDaysContract(withModels);
  statusPagesContract(withModels);
  incidentsContract(withModels);
  maintenancesContract(withModels);
  subscribersContract(withModels);
  sinksContract(withModels);
  factorsContract(withModels);
  sessionsContract(withModels);
  ssoProvidersContract(withModels);
};
