import type { AccessQueries, AccessWriter } from './access/port.ts';
import type { AnomaliesQueries, AnomaliesWriter } from './anomalies/port.ts';
import type { AnomalyWindowsQueries, AnomalyWindowsWriter } from './anomaly-windows/port.ts';
import type { AuditEventsQueries, AuditEventsWriter } from './audit-events/port.ts';
import type { ChannelsQueries, ChannelsWriter } from './channels/port.ts';
import type { DeliveriesQueries, DeliveriesWriter } from './deliveries/port.ts';
import type { DerivedSessionsQueries, DerivedSessionsWriter } from './derived-sessions/port.ts';
import type { IncidentsQueries, IncidentsWriter } from './incidents/port.ts';
import type { MaintenancesQueries, MaintenancesWriter } from './maintenances/port.ts';
import type { MaskingQueries, MaskingWriter } from './masking/port.ts';
import type { OtlpQueries, OtlpWriter } from './otlp/port.ts';
import type { MonitorsQueries, MonitorsWriter } from './monitors/port.ts';
import type { OrphansQueries, OrphansWriter } from './orphans/port.ts';
import type { StatsQueries, StatsWriter } from './stats/port.ts';
import type { StatusPagesQueries, StatusPagesWriter } from './status-pages/port.ts';
import type { SubscribersQueries, SubscribersWriter } from './subscribers/port.ts';
import type { TreeQueries, TreeWriter } from './tree/port.ts';
import type { RetentionQueries, RetentionWriter } from './retention/port.ts';
import type { SinksQueries, SinksWriter } from './sinks/port.ts';
import type { FactorsQueries, FactorsWriter } from './factors/port.ts';
import type { SessionsQueries, SessionsWriter } from './sessions/port.ts';
import type { SsoProvidersQueries, SsoProvidersWriter } from './sso-providers/port.ts';
import type { Leases, ProjectionStore } from './store/port.ts';

/** Every read model of one deployment: its queries, and the store each projection writes to.
 *  Reactors keep their state apart (src/reactors/port.ts): the log rebuilds a read model, not
 *  what a reactor did. */
export interface ReadModels {
  readonly leases: Leases;
  readonly auditEvents: AuditEventsQueries;
  readonly derivedSessions: DerivedSessionsQueries;
  readonly stats: StatsQueries;
  readonly orphans: OrphansQueries;
  readonly access: AccessQueries;
  readonly monitors: MonitorsQueries;
  readonly channels: ChannelsQueries;
  readonly deliveries: DeliveriesQueries;
  readonly anomalyWindows: AnomalyWindowsQueries;
  readonly anomalies: AnomaliesQueries;
  readonly masking: MaskingQueries;
  readonly otlp: OtlpQueries;
  readonly tree: TreeQueries;
  readonly retention: RetentionQueries;
  readonly statusPages: StatusPagesQueries;
  readonly incidents: IncidentsQueries;
  readonly maintenances: MaintenancesQueries;
  readonly subscribers: SubscribersQueries;
  readonly sinks: SinksQueries;
  readonly factors: FactorsQueries;
  readonly sessions: SessionsQueries;
  readonly ssoProviders: SsoProvidersQueries;
  readonly stores: {
    readonly auditEvents: ProjectionStore<AuditEventsWriter>;
    readonly derivedSessions: ProjectionStore<DerivedSessionsWriter>;
    readonly stats: ProjectionStore<StatsWriter>;
    readonly orphans: ProjectionStore<OrphansWriter>;
    readonly access: ProjectionStore<AccessWriter>;
    readonly monitors: ProjectionStore<MonitorsWriter>;
    readonly channels: ProjectionStore<ChannelsWriter>;
    readonly deliveries: ProjectionStore<DeliveriesWriter>;
    readonly anomalyWindows: ProjectionStore<AnomalyWindowsWriter>;
    readonly anomalies: ProjectionStore<AnomaliesWriter>;
    readonly masking: ProjectionStore<MaskingWriter>;
    readonly otlp: ProjectionStore<OtlpWriter>;
    readonly tree: ProjectionStore<TreeWriter>;
    readonly retention: ProjectionStore<RetentionWriter>;
    readonly statusPages: ProjectionStore<StatusPagesWriter>;
    readonly incidents: ProjectionStore<IncidentsWriter>;
    readonly maintenances: ProjectionStore<MaintenancesWriter>;
    readonly subscribers: ProjectionStore<SubscribersWriter>;
    readonly sinks: ProjectionStore<SinksWriter>;
    readonly factors: ProjectionStore<FactorsWriter>;
    readonly sessions: ProjectionStore<SessionsWriter>;
    readonly ssoProviders: ProjectionStore<SsoProvidersWriter>;
  };
  close(): Promise<void>;
}

/** A read model's name in `ReadModels` (its queries) and `ReadModels['stores']` (its store). */
export type ReadModelKey = keyof ReadModels['stores'];
