/** The log's streams: each is one writer's consistency boundary. */
export const projectStream = (projectId: string) => `project-${projectId}`;
export const userStream = (userId: string) => `user-${userId}`;
export const auditStream = (projectId: string) => `audit-${projectId}`;
export const monitorStream = (monitorId: string) => `monitor-${monitorId}`;
/** A monitor's checks; the log keeps the last CHECKS_KEPT (maxCount). */
export const checksStream = (monitorId: string) => `monitor-${monitorId}-checks`;
export const channelStream = (channelId: string) => `channel-${channelId}`;
export const anomaliesStream = (projectId: string) => `anomalies-${projectId}`;
/** One event ingested with an idempotency key: a stream of its own per key (a digest of it, so
 *  whatever a client sends stays out of stream names), under the project's audit prefix. */
export const auditKeyStream = (projectId: string, keyDigest: string) => `audit-${projectId}-key-${keyDigest}`;
