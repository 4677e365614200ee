import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { IncidentImpact, IncidentStatus } from '../../domain/incident.ts';
import type { IncidentView } from '../../views/incidents/port.ts';
import type { MaintenanceView } from '../../views/maintenances/port.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import { Count, managedByAnswer, nullable, type SameFields, text, Timestamp } from './answers.ts';

/** The answers of status pages, incidents and maintenance windows (their admin API; the public
 *  pages' answers are in src/http/public/). */

export const StatusPage = t.intersection([
  t.type({
    id: Uuid,
    project_id: Uuid,
    slug: t.string,
    title: t.string,
    description: nullable(t.string),
    groups: t.array(t.type({ name: t.string, monitor_ids: t.array(Uuid) })),
    published: t.boolean,
    show_uptime_days: Count,
    custom_domain: nullable(t.string),
    auto_incidents: t.boolean,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  managedByAnswer,
]);

const IncidentUpdate = t.type({
  id: Uuid,
  status: IncidentStatus,
  message: t.string,
  impact: nullable(IncidentImpact),
  at: Timestamp,
});

export const Incident = t.type({
  id: Uuid,
  project_id: Uuid,
  title: t.string,
  status: IncidentStatus,
  impact: IncidentImpact,
  monitor_ids: t.array(Uuid),
  auto: nullable(t.type({ monitor_id: Uuid, down_event_id: Uuid })),
  created_at: Timestamp,
  updated_at: Timestamp,
  resolved_at: nullable(Timestamp),
  updates: t.array(IncidentUpdate),
});

const Window = t.type({ start: Timestamp, end: Timestamp });

export const Maintenance = t.intersection([
  t.type({
    id: Uuid,
    project_id: Uuid,
    title: t.string,
    description: nullable(t.string),
    monitor_ids: t.union([t.literal('all'), t.array(Uuid)]),
    schedule: t.union([
      t.type({ kind: t.literal('once'), starts_at: Timestamp, ends_at: Timestamp }),
      t.type({
        kind: t.literal('recurring'),
        rrule: text('an RFC 5545 RRULE', { examples: ['FREQ=WEEKLY;BYDAY=SU'] }),
        starts_at: Timestamp,
        duration_minutes: Count,
        timezone: text('an IANA time zone', { examples: ['Europe/Berlin'] }),
      }),
    ]),
    open: nullable(Window),
    /** The next occurrences (up to 5, within 90 days), computed at answer time. */
    next: t.array(Window),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  managedByAnswer,
]);

true satisfies SameFields<typeof StatusPage, StatusPageView>;
true satisfies SameFields<typeof Incident, IncidentView>;
true satisfies SameFields<typeof Maintenance, MaintenanceView & { next: Array<{ start: string; end: string }> }>;
