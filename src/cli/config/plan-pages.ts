import { isManaged, MANAGED, same, sameInstant } from './compare.ts';
import { pathText } from './parse.ts';
import type { MaintenanceAnswer, PageAnswer } from './state.ts';
import {
  createdFields,
  type FieldChange,
  monitorIdsOf,
  projectId,
  prune,
  sensitiveAt,
  type ProjectPlan,
  type RunContext,
} from './steps.ts';

/** Status pages (by slug) and maintenance windows (by title), which name monitors by name. */

/** Monitor names a page or window refers to must be the project's, in the file or already. */
export const knownMonitors = (p: ProjectPlan) =>
  new Set([...(p.project.monitors ?? []).map((m) => m.name), ...(p.current?.monitors ?? []).map((m) => m.name)]);
export const namesOf = (p: ProjectPlan, ids: readonly string[]) => {
  const byId = new Map((p.current?.monitors ?? []).map((m) => [m.id, m.name]));
  return ids.map((id) => byId.get(id) ?? id);
};

export const planPages = (p: ProjectPlan) => {
  const name = p.project.name;
  const known = knownMonitors(p);
  const current = new Map((p.current?.pages ?? []).map((s) => [s.slug, s]));
  (p.project.status_pages ?? []).forEach((page, i) => {
    page.groups?.forEach((g, j) => {
      g.monitors.forEach((m, k) => {
        if (!known.has(m))
          p.faults.push(
            `${pathText([...p.at, 'status_pages', i, 'groups', j, 'monitors', k])}: no monitor "${m}" in ${name}`,
          );
      });
    });
    const body = (ctx: RunContext) => {
      const { groups, ...rest } = page;
      return groups === undefined
        ? rest
        : { ...rest, groups: groups.map((g) => ({ name: g.name, monitor_ids: monitorIdsOf(ctx, name, g.monitors) })) };
    };
    const now = current.get(page.slug);
    if (now === undefined) {
      p.steps.push({
        action: 'create',
        kind: 'status page',
        project: name,
        name: page.slug,
        fields: createdFields(page, (k) => sensitiveAt(p, ['status_pages', i, k])),
        run: (ctx) =>
          ctx.client
            .send('POST', '/v1/status-pages', { project_id: projectId(ctx, name), ...body(ctx), managed_by: MANAGED })
            .then(() => undefined),
      });
      return;
    }
    const before = pageAsFile(p, now);
    const fields: FieldChange[] = Object.entries(page)
      .filter(([field, after]) => field !== 'slug' && !same(before[field], after))
      .map(([field, after]) => ({
        field,
        before: before[field],
        after,
        sensitive: sensitiveAt(p, ['status_pages', i, field]),
      }));
    // One made by hand of the file's slug is adopted.
    const adopt = !isManaged(now.managed_by);
    if (adopt) fields.push({ field: 'managed_by', before: now.managed_by, after: MANAGED, sensitive: false });
    if (fields.length === 0) return;
    p.steps.push({
      action: 'change',
      kind: 'status page',
      project: name,
      name: page.slug,
      fields,
      run: (ctx) => {
        const all = body(ctx) as Record<string, unknown>;
        const changed = Object.fromEntries(fields.map((f) => [f.field, all[f.field] ?? f.after]));
        return ctx.client.send('PUT', `/v1/status-pages/${now.id}`, changed).then(() => undefined);
      },
    });
  });
  const named = new Set((p.project.status_pages ?? []).map((s) => s.slug));
  prune(p, 'status page', p.current?.pages ?? [], (s) => s.slug, named, '/v1/status-pages');
};

export const PAGE_FIELDS = [
  'slug',
  'title',
  'description',
  'published',
  'show_uptime_days',
  'custom_domain',
  'auto_incidents',
];

export const pageAsFile = (p: Pick<ProjectPlan, 'current'>, page: PageAnswer): Record<string, unknown> => ({
  ...Object.fromEntries(PAGE_FIELDS.map((k) => [k, page[k]])),
  groups: page.groups.map((g) => ({ name: g.name, monitors: namesOf(p as ProjectPlan, g.monitor_ids) })),
});

export const maintenanceAsFile = (p: Pick<ProjectPlan, 'current'>, m: MaintenanceAnswer): Record<string, unknown> => {
  const { kind: _kind, ...schedule } = m.schedule;
  return {
    title: m.title,
    ...(m.description === null ? {} : { description: m.description }),
    monitors: m.monitor_ids === 'all' ? 'all' : namesOf(p as ProjectPlan, m.monitor_ids),
    ...schedule,
  };
};

export const SCHEDULE = ['starts_at', 'ends_at', 'rrule', 'duration_minutes', 'timezone'];

export const planMaintenance = (p: ProjectPlan) => {
  const name = p.project.name;
  const known = knownMonitors(p);
  const current = new Map((p.current?.maintenances ?? []).map((m) => [m.title, m]));
  (p.project.maintenance ?? []).forEach((window, i) => {
    if (window.monitors !== 'all')
      window.monitors.forEach((m, k) => {
        if (!known.has(m))
          p.faults.push(`${pathText([...p.at, 'maintenance', i, 'monitors', k])}: no monitor "${m}" in ${name}`);
      });
    const body = (ctx: RunContext, fields: readonly string[]) => {
      const { monitors, ...rest } = window as typeof window & Record<string, unknown>;
      const all: Record<string, unknown> = {
        ...rest,
        monitor_ids: monitors === 'all' ? 'all' : monitorIdsOf(ctx, name, monitors),
      };
      const wanted = fields.flatMap((f) =>
        f === 'monitors' ? ['monitor_ids'] : SCHEDULE.includes(f) ? SCHEDULE : [f],
      );
      return Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k)));
    };
    const now = current.get(window.title);
    if (now === undefined) {
      p.steps.push({
        action: 'create',
        kind: 'maintenance',
        project: name,
        name: window.title,
        fields: createdFields(window, () => false),
        run: (ctx) =>
          ctx.client
            .send('POST', '/v1/maintenances', {
              project_id: projectId(ctx, name),
              ...body(ctx, Object.keys(all(window))),
              managed_by: MANAGED,
            })
            .then(() => undefined),
      });
      return;
    }
    const before = maintenanceAsFile(p, now);
    const after = all(window);
    const differs = (f: string) =>
      f === 'starts_at' || f === 'ends_at' ? !sameInstant(before[f], after[f]) : !same(before[f], after[f]);
    // A schedule is one: a one-off window made recurring loses its `ends_at`.
    const fields: FieldChange[] = [...new Set([...Object.keys(after), ...SCHEDULE.filter((f) => f in before)])]
      .filter((f) => f !== 'title' && differs(f))
      .map((field) => ({ field, before: before[field], after: after[field], sensitive: false }));
    const adopt = !isManaged(now.managed_by);
    if (adopt) fields.push({ field: 'managed_by', before: now.managed_by, after: MANAGED, sensitive: false });
    if (fields.length === 0) return;
    p.steps.push({
      action: 'change',
      kind: 'maintenance',
      project: name,
      name: window.title,
      fields,
      run: (ctx) =>
        ctx.client
          .send('PUT', `/v1/maintenances/${now.id}`, {
            ...body(
              ctx,
              fields.map((f) => f.field),
            ),
            ...(adopt ? { managed_by: MANAGED } : {}),
          })
          .then(() => undefined),
    });
  });
  const named = new Set((p.project.maintenance ?? []).map((m) => m.title));
  prune(p, 'maintenance', p.current?.maintenances ?? [], (m) => m.title, named, '/v1/maintenances');
};
export const all = (o: object) => o as Record<string, unknown>;
