import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../../src/domain/events.ts';
import * as streams from '../../src/domain/streams.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';

const streamOf = (e: DomainEvent): string => {
  switch (e.type) {
    case 'ProjectCreated':
    case 'ApiKeyIssued':
    case 'ApiKeyRestricted':
    case 'ApiKeyRevoked':
    case 'MaskingRulesSet':
    case 'OtlpSettingsSet':
    case 'RetentionSet':
    case 'RetentionApplied':
    case 'ErasureRequested':
    case 'IdentifierErased':
      return streams.projectStream(e.data.project_id);
    case 'RecordRedacted':
      return streams.auditStream(e.data.project_id);
    case 'ApiKeyUsed':
      return streams.keyUseStream(e.data.key_id);
    case 'SessionStarted':
    case 'SessionRefreshed':
    case 'SessionEnded':
      return streams.sessionStream(e.data.session_id);
    case 'SsoProviderSaved':
    case 'SsoProviderDeleted':
      return streams.ssoProviderStream(e.data.provider_id);
    case 'UserRegistered':
    case 'UserAccessChanged':
    case 'UserDisabled':
    case 'UserEnabled':
    case 'UserPasswordChanged':
    case 'UserPasswordRehashed':
      return streams.userStream(e.data.user_id);
    case 'TotpEnrolled':
    case 'TotpUsed':
    case 'TotpRemoved':
    case 'RecoveryCodesGenerated':
    case 'RecoveryCodeUsed':
    case 'PasskeyRegistered':
    case 'PasskeyRenamed':
    case 'PasskeyUsed':
    case 'PasskeyRemoved':
      return streams.factorsStream(e.data.user_id);
    case 'SecondFactorPolicySet':
      return streams.SECOND_FACTOR_POLICY_STREAM;
    case 'AuditEventRecorded':
      return streams.auditStream(e.data.project_id);
    case 'CheckRecorded':
      return streams.checksStream(e.data.monitor_id);
    case 'MonitorCreated':
    case 'MonitorUpdated':
    case 'MonitorDeleted':
    case 'MonitorStatusEstablished':
    case 'MonitorWentDown':
    case 'MonitorCameUp':
    case 'MonitorConfirming':
    case 'CertificateExpiring':
      return streams.monitorStream(e.data.monitor_id);
    case 'ChannelCreated':
    case 'ChannelUpdated':
    case 'ChannelDeleted':
    case 'ChannelDeactivated':
    case 'ChannelDegraded':
    case 'ChannelRecovered':
      return streams.channelStream(e.data.channel_id);
    case 'SinkCreated':
    case 'SinkUpdated':
    case 'SinkDeleted':
    case 'SinkDegraded':
    case 'SinkRecovered':
      return streams.sinkStream(e.data.sink_id);
    case 'DeliveryScheduled':
    case 'DeliverySkipped':
    case 'DeliveryAttempted':
    case 'DeliveryRetryRequested':
    case 'DeliveryCancelled':
      return streams.deliveryStream(e.data.delivery_id);
    case 'AnomalyDetected':
    case 'AnomalyCleared':
    case 'AnomalySettingsUpdated':
      return streams.anomaliesStream(e.data.project_id);
    case 'CheckpointSigned':
      return streams.checkpointsStream(e.data.project_id);
    case 'StatusPageCreated':
    case 'StatusPageUpdated':
    case 'StatusPageDeleted':
      return streams.statusPageStream(e.data.page_id);
    case 'PageNameClaimed':
    case 'PageNameReleased':
      return streams.pageNameStream('slug', e.data.name);
    case 'IncidentOpened':
    case 'IncidentUpdatePosted':
    case 'IncidentDeleted':
      return streams.incidentStream(e.data.incident_id);
    case 'MaintenanceScheduled':
    case 'MaintenanceUpdated':
    case 'MaintenanceDeleted':
    case 'MaintenanceStarted':
    case 'MaintenanceEnded':
      return streams.maintenanceStream(e.data.maintenance_id);
    case 'SubscriberRequested':
    case 'SubscriberConfirmed':
    case 'SubscriberUnsubscribed':
    case 'SubscriberRemoved':
      return streams.subscriberStream(e.data.subscriber_id);
  }
};

/** Gives domain events what appending them would: increasing positions, a stream and its next
 *  revision, an id and metadata. Remembers which record each event became. */
export class Recorder {
  private position = 0;
  private readonly revisions = new Map<string, number>();
  private readonly records = new Map<DomainEvent, RecordedEvent>();

  record(events: readonly DomainEvent[]): RecordedEvent[] {
    return events.map((event) => {
      const stream = streamOf(event);
      const revision = (this.revisions.get(stream) ?? -1) + 1;
      this.revisions.set(stream, revision);
      this.position += 1;
      // A copy through JSON, as the log stores it: the fold must not depend on object identity.
      const recorded: RecordedEvent = {
        id: randomUUID(),
        type: event.type,
        data: JSON.parse(JSON.stringify(event.data)) as unknown,
        stream,
        revision,
        position: String(this.position),
        metadata: {
          recorded_at: new Date(Date.UTC(2026, 0, 1) + this.position).toISOString(),
          actor: 'test',
          correlation_id: randomUUID(),
          schema_version: 1,
        },
      };
      this.records.set(event, recorded);
      return recorded;
    });
  }

  /** The record `event` became (its id keys the rows of monitor transitions). */
  recordOf(event: DomainEvent): RecordedEvent {
    const recorded = this.records.get(event);
    if (!recorded) throw new Error(`${event.type} was not recorded`);
    return recorded;
  }
}
