/** The log's streams: each is one writer's consistency boundary. */
export const projectStream = (projectId: string) => `project-${projectId}`;
export const userStream = (userId: string) => `user-${userId}`;
export const auditStream = (projectId: string) => `audit-${projectId}`;
export const monitorStream = (monitorId: string) => `monitor-${monitorId}`;
/** A monitor's checks; the log keeps the last CHECKS_KEPT (maxCount). */
export const checksStream = (monitorId: string) => `monitor-${monitorId}-checks`;
export const channelStream = (channelId: string) => `channel-${channelId}`;
/** One notification to one channel, with its tries (src/domain/delivery.ts). */
export const deliveryStream = (deliveryId: string) => `delivery-${deliveryId}`;
export const anomaliesStream = (projectId: string) => `anomalies-${projectId}`;
/** One event ingested with an idempotency key: a stream of its own per key, under the project's
 *  audit prefix. Keys are 1–255 printable ASCII characters without spaces (checked at the edge). */
export const auditKeyStream = (projectId: string, idempotencyKey: string) => `audit-${projectId}-key-${idempotencyKey}`;
/** What retention removed from a project, a page at a time (RetentionApplied): apart from the
 *  project's stream, which every command on the project reads whole. */
export const retentionStream = (projectId: string) => `retention-${projectId}`;
/** A project's signed checkpoints. */
export const checkpointsStream = (projectId: string) => `checkpoints-${projectId}`;

/** The streams whose records are stored side by side where the log groups them (the embedded
 *  log's compressed blocks): a project's keyed audit events with its audit stream. A project id
 *  never holds '-key-', so the first one ends it. */
export const streamFamily = (stream: string): string => {
  const key = stream.indexOf('-key-');
  return key > 0 && stream.startsWith('audit-') ? stream.slice(0, key) : stream;
};
export const statusPageStream = (pageId: string) => `status-page-${pageId}`;
/** Who holds a status page's slug or custom domain: one stream per name, so a claim is atomic. */
export const pageNameStream = (kind: 'slug' | 'domain', name: string) => `page-${kind}-${name}`;
export const incidentStream = (incidentId: string) => `incident-${incidentId}`;
export const maintenanceStream = (maintenanceId: string) => `maintenance-${maintenanceId}`;
/** One address's subscription to one status page (src/domain/subscriber.ts). */
export const subscriberStream = (subscriberId: string) => `subscriber-${subscriberId}`;
/** When a key was last used: the log keeps the last ApiKeyUsed only (maxCount 1). */
export const keyUseStream = (keyId: string) => `apikey-${keyId}-uses`;
/** A log sink's configuration and health (src/domain/sink.ts). */
export const sinkStream = (sinkId: string) => `sink-${sinkId}`;
/** A user's second factors and their uses (src/domain/factors.ts). */
export const factorsStream = (userId: string) => `factors-${userId}`;
/** The deployment's second-factor policy. */
export const SECOND_FACTOR_POLICY_STREAM = 'settings-second-factor';
/** One sign-in session and its refresh tokens (src/domain/session.ts). */
export const sessionStream = (sessionId: string) => `session-${sessionId}`;
/** One single sign-on provider's settings (src/domain/sso.ts). */
export const ssoProviderStream = (providerId: string) => `sso-provider-${providerId}`;
