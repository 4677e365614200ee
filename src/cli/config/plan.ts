import type { ConfigFile } from '../../domain/config-file.ts';
import type { ApiClient } from './client.ts';
import { isManaged, managedMark, MANAGED, MONITOR_SECRETS, same } from './compare.ts';
import { planMaintenance, planPages } from './plan-pages.ts';
import type { ProjectState } from './state.ts';
import {
  CHANNEL_SECRETS,
  createdFields,
  type FieldChange,
  monitorKey,
  PlanError,
  type ProjectPlan,
  projectId,
  prune,
  type RunContext,
  sensitiveAt,
  type Step,
} from './steps.ts';

export { maintenanceAsFile, pageAsFile } from './plan-pages.ts';
export { PlanError, type Step } from './steps.ts';
/** What `apply` would do to make the API hold what the file says, as steps `plan` prints and
 *  `apply` runs in order: each step is one API call (two for a replacement). Fields the file
 *  leaves out keep what the API has; `prune` deletes the monitors, channels, pages and windows
 *  apply made that the file no longer names. */

const planMonitors = (p: ProjectPlan) => {
  const name = p.project.name;
  const current = new Map((p.current?.monitors ?? []).map((m) => [m.name, m]));
  (p.project.monitors ?? []).forEach((desired, i) => {
    const item = desired as Record<string, unknown> & { name: string; type?: string };
    const mark = managedMark(item.name, Object.fromEntries(MONITOR_SECRETS.map((k) => [k, item[k]])));
    const secret = (k: string) =>
      (MONITOR_SECRETS as readonly string[]).includes(k) || sensitiveAt(p, ['monitors', i, k]);
    const create = async (ctx: RunContext) => {
      const made = await ctx.client.send<{ id: string; heartbeat_url?: string }>('POST', '/v1/monitors', {
        project_id: projectId(ctx, name),
        ...item,
        managed_by: mark,
      });
      ctx.monitorIds.set(monitorKey(name, item.name), made.id);
      // Answered once, as an API key is: the job's credential, which nothing shows again.
      return made.heartbeat_url === undefined ? undefined : `heartbeat URL (shown once): ${made.heartbeat_url}`;
    };
    const now = current.get(item.name);
    if (now === undefined) {
      p.steps.push({
        action: 'create',
        kind: 'monitor',
        project: name,
        name: item.name,
        fields: createdFields(item, secret),
        run: create,
      });
      return;
    }
    if ((item.type ?? 'http') !== now.type) {
      p.steps.push({
        action: 'replace',
        kind: 'monitor',
        project: name,
        name: item.name,
        note: "a monitor's type cannot change",
        fields: [{ field: 'type', before: now.type, after: item.type ?? 'http', sensitive: false }],
        run: async (ctx) => {
          await ctx.client.send('DELETE', `/v1/monitors/${now.id}`);
          await create(ctx);
        },
      });
      return;
    }
    const managed = isManaged(now.managed_by);
    const fields: FieldChange[] = [];
    const body: Record<string, unknown> = {};
    for (const [field, after] of Object.entries(item)) {
      if (field === 'name' || field === 'type' || (MONITOR_SECRETS as readonly string[]).includes(field)) continue;
      if (same(now[field], after)) continue;
      fields.push({ field, before: now[field], after, sensitive: secret(field) });
      body[field] = after;
    }
    // Answers mask secrets: a monitor apply keeps carries their fingerprint in its mark; one
    // made by hand is given the file's secrets when it has or gets any.
    const given = MONITOR_SECRETS.filter((k) => item[k] !== undefined || now[k] !== undefined);
    if (managed ? now.managed_by !== mark : given.length > 0)
      for (const field of given) {
        fields.push({ field, before: now[field], after: item[field], sensitive: true });
        body[field] = item[field] ?? null;
      }
    if (!managed) fields.push({ field: 'managed_by', before: now.managed_by, after: MANAGED, sensitive: false });
    if (fields.length === 0) return;
    p.steps.push({
      action: 'change',
      kind: 'monitor',
      project: name,
      name: item.name,
      fields,
      run: (ctx) =>
        ctx.client.send('PUT', `/v1/monitors/${now.id}`, { ...body, managed_by: mark }).then(() => undefined),
    });
  });
  const named = new Set((p.project.monitors ?? []).map((m) => m.name));
  prune(p, 'monitor', p.current?.monitors ?? [], (m) => m.name, named, '/v1/monitors');
};

/** A secret's value before, which answers never give: any defined value prints as `(sensitive)`. */
const HIDDEN = '';

/** A channel's destination and secrets are never answered: a channel apply keeps carries their
 *  fingerprint in its mark, and since they cannot change in place, a changed one is a
 *  replacement. The rest (type, scope, events, state and quiet time) is compared as answered. */
const planChannels = (p: ProjectPlan) => {
  const name = p.project.name;
  const current = new Map((p.current?.channels ?? []).map((c) => [c.name, c]));
  (p.project.channels ?? []).forEach((desired, i) => {
    const item = desired as Record<string, unknown> & { name: string; type: string };
    const secret = (k: string) => CHANNEL_SECRETS.has(k) || sensitiveAt(p, ['channels', i, k]);
    const secrets = Object.keys(item).filter((k) => CHANNEL_SECRETS.has(k));
    const mark = managedMark(item.name, Object.fromEntries(secrets.map((k) => [k, item[k]])));
    const create = (ctx: RunContext) =>
      ctx.client
        .send('POST', '/v1/channels', { project_id: projectId(ctx, name), ...item, managed_by: mark })
        .then(() => undefined);
    const now = current.get(item.name);
    if (now === undefined) {
      p.steps.push({
        action: 'create',
        kind: 'channel',
        project: name,
        name: item.name,
        fields: createdFields(item, secret),
        run: create,
      });
      return;
    }
    const fixed = (['type', 'project_scope'] as const).filter((k) => item[k] !== undefined && !same(now[k], item[k]));
    const managed = isManaged(now.managed_by);
    const rotated = fixed.length === 0 && managed && now.managed_by !== mark;
    if (fixed.length > 0 || rotated) {
      p.steps.push({
        action: 'replace',
        kind: 'channel',
        project: name,
        name: item.name,
        note: rotated ? 'its destination and secrets cannot change in place' : `${fixed.join(' and ')} cannot change`,
        fields: rotated
          ? secrets.map((field) => ({ field, before: HIDDEN, after: item[field], sensitive: true }))
          : fixed.map((field) => ({ field, before: now[field], after: item[field], sensitive: false })),
        run: async (ctx) => {
          await ctx.client.send('DELETE', `/v1/channels/${now.id}`);
          await create(ctx);
        },
      });
      return;
    }
    const fields: FieldChange[] = (['events', 'active', 'quiet_minutes'] as const)
      .filter((k) => item[k] !== undefined && !same(now[k], item[k]))
      .map((field) => ({ field, before: now[field], after: item[field], sensitive: false }));
    // One made by hand is adopted as it is: its destination is taken to be the file's.
    if (!managed) fields.push({ field: 'managed_by', before: now.managed_by, after: MANAGED, sensitive: false });
    if (fields.length === 0) return;
    const body = { ...Object.fromEntries(fields.map((f) => [f.field, f.after])), managed_by: mark };
    p.steps.push({
      action: 'change',
      kind: 'channel',
      project: name,
      name: item.name,
      fields,
      run: (ctx) => ctx.client.send('PUT', `/v1/channels/${now.id}`, body).then(() => undefined),
    });
  });
  const named = new Set((p.project.channels ?? []).map((c) => c.name ?? ''));
  prune(p, 'channel', p.current?.channels ?? [], (c) => c.name ?? c.id, named, '/v1/channels');
};

/** Masking, retention and anomaly settings: one step each when the file gives them and they differ. */
const planSettings = (p: ProjectPlan) => {
  const { project } = p;
  const name = project.name;
  const setting = (kind: string, fields: FieldChange[], path: string, body: unknown) => {
    if (fields.length > 0)
      p.steps.push({
        action: p.current === null ? 'create' : 'change',
        kind,
        project: name,
        name,
        fields,
        run: (ctx) => ctx.client.send('PUT', `/v1/projects/${projectId(ctx, name)}${path}`, body).then(() => undefined),
      });
  };
  if (project.masking !== undefined) {
    const before = p.current?.masking ?? { keys: [], patterns: [] };
    const fields = (['keys', 'patterns'] as const)
      .filter((k) => !same(before[k], project.masking![k]))
      .map((field) => ({ field, before: before[field], after: project.masking![field], sensitive: false }));
    setting('masking', fields, '/masking', project.masking);
  }
  if (project.retention_days !== undefined) {
    const before = p.current?.retention_days ?? null;
    const fields = same(before, project.retention_days)
      ? []
      : [{ field: 'retention_days', before, after: project.retention_days, sensitive: false }];
    setting('retention', fields, '/retention', { retention_days: project.retention_days });
  }
  if (project.anomaly_settings !== undefined) {
    const fields: FieldChange[] = [];
    const patch: Record<string, Record<string, unknown>> = {};
    for (const [rule, values] of Object.entries(project.anomaly_settings))
      for (const [field, after] of Object.entries(values ?? {})) {
        const before = p.current?.anomaly[rule]?.[field];
        if (p.current !== null && same(before, after)) continue;
        fields.push({ field: `${rule}.${field}`, before, after, sensitive: false });
        patch[rule] ??= {};
        patch[rule][field] = after;
      }
    setting('anomaly settings', fields, '/anomaly-settings', patch);
  }
};

/** The plan of `file` against `current` (each project of the file by name, null when the API
 *  has none of that name yet). Throws PlanError for references the file cannot resolve. */
export const buildPlan = (
  file: ConfigFile,
  current: ReadonlyMap<string, ProjectState | null>,
  { fromEnv, prune }: { fromEnv: ReadonlySet<string>; prune: boolean },
): Step[] => {
  const steps: Step[] = [];
  const faults: string[] = [];
  file.projects.forEach((project, i) => {
    const state = current.get(project.name) ?? null;
    const p: ProjectPlan = { project, at: ['projects', i], current: state, fromEnv, prune, steps, faults };
    if (state === null)
      steps.push({
        action: 'create',
        kind: 'project',
        project: project.name,
        name: project.name,
        fields: [],
        run: async (ctx) => {
          const made = await ctx.client.send<{ id: string }>('POST', '/v1/projects', { name: project.name });
          ctx.projectIds.set(project.name, made.id);
        },
      });
    planMonitors(p);
    planChannels(p);
    planPages(p);
    planMaintenance(p);
    planSettings(p);
  });
  if (faults.length > 0) throw new PlanError(faults);
  // Deletions last: a page or window changed above may have named the monitor; and monitors
  // after the pages and windows that may name them.
  const deletes = steps.filter((s) => s.action === 'delete');
  return [
    ...steps.filter((s) => s.action !== 'delete'),
    ...deletes.filter((s) => s.kind !== 'monitor'),
    ...deletes.filter((s) => s.kind === 'monitor'),
  ];
};

/** The ids a run starts from: the projects and monitors the API has now. */
export const runContext = (client: ApiClient, current: ReadonlyMap<string, ProjectState | null>): RunContext => {
  const ctx: RunContext = { client, projectIds: new Map(), monitorIds: new Map() };
  for (const state of current.values()) {
    if (state === null) continue;
    ctx.projectIds.set(state.name, state.id);
    for (const m of state.monitors) ctx.monitorIds.set(monitorKey(state.name, m.name), m.id);
  }
  return ctx;
};
