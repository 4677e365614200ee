import * as t from 'io-ts';
import { ANOMALY_FIELDS, RULES, type RuleName } from './anomaly-settings.ts';
import { ChannelCreateInput } from './channel.ts';
import { boundedArray, boundedString, closed } from './codecs.ts';
import { withSchema } from './json-schema.ts';
import { maintenanceShape, MAX_MAINTENANCE_MONITORS } from './maintenance.ts';
import { MaskingRulesBody } from './masking-rules.ts';
import { MonitorCreateInput } from './monitor-input.ts';
import { RetentionBody } from './retention.ts';
import { MAX_GROUPS, MAX_MONITORS_PER_GROUP, Slug, statusPageFields } from './status-page.ts';

/** The configuration file of `watchlog plan`/`apply`/`export` (docs/config-file.md): projects by
 *  name, each with what the API keeps of it. Each item is decoded by the codec its API endpoint
 *  decodes with, so the file accepts what the API accepts and refuses what it refuses, unknown
 *  keys included; the project is the one an item is listed under, and status pages and
 *  maintenance windows name monitors by name (ids differ between deployments). Pure. */

/** Stands in for the project an item is listed under while the API's codec decodes it. */
const LISTED_UNDER = '00000000-0000-4000-8000-000000000000';

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `codec` (an API create body) without its `project_id` and the fields `apply` itself keeps. The
 *  JSON Schema is the API codec's; src/http/config-schema.ts takes `project_id` and `managed_by`
 *  out of it. */
const listedItem = <C extends t.Mixed>(codec: C, name: string, reserved: readonly string[] = []) =>
  withSchema(
    new t.Type<Omit<t.TypeOf<C>, 'project_id'>, unknown, unknown>(
      name,
      (u): u is Omit<t.TypeOf<C>, 'project_id'> => isRecord(u) && !('project_id' in u) && codec.is(u),
      (u, c) => {
        if (!isRecord(u)) return t.failure(u, c, 'must be a mapping');
        const taken = ['project_id', ...reserved].filter((key) => key in u);
        if (taken.length > 0)
          return t.failures(
            taken.map((key) => ({
              value: u[key],
              context: [...c, { key, type: t.unknown, actual: u[key] }],
              message:
                key === 'project_id'
                  ? 'is not a known field (an item belongs to the project it is listed under)'
                  : 'is not a known field (apply sets it)',
            })),
          );
        // The API's codec stands where this one stood, so its faults read as if it were asked.
        const last = c[c.length - 1]!;
        const decoded = codec.validate({ ...u, project_id: LISTED_UNDER }, [
          ...c.slice(0, -1),
          { ...last, type: codec },
        ]);
        if (decoded._tag === 'Left') return decoded;
        const { project_id: _project, ...rest } = decoded.right as Record<string, unknown>;
        return t.success(rest as Omit<t.TypeOf<C>, 'project_id'>);
      },
      t.identity,
    ),
    {},
    codec,
  );

const MonitorNames = boundedArray(boundedString(1, 255), 0, MAX_MONITORS_PER_GROUP, 'a list of monitor names');

export const FileMonitor = listedItem(MonitorCreateInput, 'a monitor', ['managed_by']);
export type FileMonitor = t.TypeOf<typeof FileMonitor>;

export const FileChannel = listedItem(ChannelCreateInput, 'a notification channel', ['managed_by']);
export type FileChannel = t.TypeOf<typeof FileChannel>;

export const FileStatusPage = closed(
  t.exact(
    t.intersection([
      t.type({ slug: Slug, title: statusPageFields.title }),
      t.partial({
        description: statusPageFields.description,
        groups: boundedArray(
          closed(t.exact(t.type({ name: boundedString(1, 100), monitors: MonitorNames })), 'field', 'a group'),
          0,
          MAX_GROUPS,
          `a list of at most ${MAX_GROUPS} groups`,
        ),
        published: statusPageFields.published,
        show_uptime_days: statusPageFields.show_uptime_days,
        custom_domain: statusPageFields.custom_domain,
        auto_incidents: statusPageFields.auto_incidents,
      }),
    ]),
  ),
  'field',
  'a status page',
);
export type FileStatusPage = t.TypeOf<typeof FileStatusPage>;

export const FileMaintenance = closed(
  t.exact(
    t.intersection([
      t.type({
        title: maintenanceShape.title,
        monitors: t.union(
          [
            t.literal('all'),
            boundedArray(
              boundedString(1, 255),
              1,
              MAX_MAINTENANCE_MONITORS,
              `a list of 1 to ${MAX_MAINTENANCE_MONITORS} monitor names`,
            ),
          ],
          '"all" or a list of monitor names',
        ),
        starts_at: maintenanceShape.starts_at,
      }),
      t.partial({
        description: maintenanceShape.description,
        ends_at: maintenanceShape.ends_at,
        rrule: maintenanceShape.rrule,
        duration_minutes: maintenanceShape.duration_minutes,
        timezone: maintenanceShape.timezone,
      }),
    ]),
  ),
  'field',
  'a maintenance window',
);
export type FileMaintenance = t.TypeOf<typeof FileMaintenance>;

/** A project's own anomaly settings: any rules, any of their fields (what the file does not
 *  name stays as it is). */
export const FileAnomalySettings = closed(
  t.exact(
    t.partial(
      Object.fromEntries(
        RULES.map((rule) => [rule, closed(t.exact(t.partial(ANOMALY_FIELDS[rule])), 'field', `${rule} settings`)]),
      ) as unknown as { [R in RuleName]: t.Mixed },
    ),
  ),
  'field',
  'anomaly settings',
);
export type FileAnomalySettings = Partial<Record<RuleName, Record<string, unknown>>>;

export const FileProject = closed(
  t.exact(
    t.intersection([
      t.type({ name: boundedString(1, 100) }),
      t.partial({
        monitors: t.array(FileMonitor),
        channels: t.array(FileChannel),
        status_pages: t.array(FileStatusPage),
        maintenance: t.array(FileMaintenance),
        masking: MaskingRulesBody,
        retention_days: RetentionBody.type.props.retention_days,
        anomaly_settings: FileAnomalySettings,
      }),
    ]),
  ),
  'field',
  'a project',
);

export interface FileProject {
  name: string;
  monitors?: FileMonitor[];
  channels?: FileChannel[];
  status_pages?: FileStatusPage[];
  maintenance?: FileMaintenance[];
  masking?: { keys: string[]; patterns: string[] };
  retention_days?: number | null;
  anomaly_settings?: FileAnomalySettings;
}

export const ConfigFile = closed(
  t.exact(t.intersection([t.type({ projects: t.array(FileProject) }), t.partial({ $schema: t.string })])),
  'field',
  'a watchlog configuration file',
);
export interface ConfigFile {
  projects: FileProject[];
  $schema?: string;
}

/** A fault the codecs cannot see: two items of a list with the same name. */
export interface FileFault {
  readonly path: Array<string | number>;
  readonly message: string;
}

/** Names must be unique where items are matched by them: projects, monitors, channels (which
 *  the file must name), status pages (by slug) and maintenance windows (by title). */
export const fileFaults = (file: ConfigFile): FileFault[] => {
  const faults: FileFault[] = [];
  const unique = <I>(
    items: readonly I[] | undefined,
    key: (i: I) => string | undefined,
    base: Array<string | number>,
  ) => {
    const seen = new Set<string>();
    (items ?? []).forEach((item, i) => {
      const k = key(item);
      if (k === undefined) return;
      if (seen.has(k)) faults.push({ path: [...base, i], message: `repeats ${JSON.stringify(k)}, already listed` });
      seen.add(k);
    });
  };
  unique(file.projects, (p) => p.name, ['projects']);
  file.projects.forEach((p, i) => {
    const at = ['projects', i];
    unique(p.monitors, (m) => m.name, [...at, 'monitors']);
    unique(p.status_pages, (s) => s.slug, [...at, 'status_pages']);
    unique(p.maintenance, (m) => m.title, [...at, 'maintenance']);
    (p.channels ?? []).forEach((c, j) => {
      if (c.name === undefined)
        faults.push({
          path: [...at, 'channels', j, 'name'],
          message: 'is required (the file matches channels by name)',
        });
    });
    unique(p.channels, (c) => c.name, [...at, 'channels']);
  });
  return faults;
};
