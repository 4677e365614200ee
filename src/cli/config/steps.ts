import type { FileProject } from '../../domain/config-file.ts';
import type { ApiClient } from './client.ts';
import { isManaged } from './compare.ts';
import { pathText } from './parse.ts';
import type { ProjectState } from './state.ts';

/** The steps a plan is made of, and what planning one project's items shares. */

export type Action = 'create' | 'change' | 'replace' | 'delete';

export interface FieldChange {
  readonly field: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly sensitive: boolean;
}

export interface RunContext {
  readonly client: ApiClient;
  readonly projectIds: Map<string, string>;
  /** Monitor ids by `project\nname`, as they are now and as steps create them. */
  readonly monitorIds: Map<string, string>;
}

export interface Step {
  readonly action: Action;
  readonly kind: string;
  readonly project: string;
  readonly name: string;
  readonly fields: readonly FieldChange[];
  readonly note?: string;
  /** Resolves to what the API shows once and the user must see (a heartbeat's URL), if any. */
  run(ctx: RunContext): Promise<unknown>;
}

export class PlanError extends Error {
  constructor(readonly faults: readonly string[]) {
    super(faults.join('\n'));
  }
}

export const CHANNEL_SECRETS = new Set(['url', 'secret', 'smtp', 'routing_key', 'token', 'subscription']);
export const monitorKey = (project: string, name: string) => `${project}\n${name}`;

export interface ProjectPlan {
  readonly project: FileProject;
  readonly at: Array<string | number>;
  readonly current: ProjectState | null;
  readonly fromEnv: ReadonlySet<string>;
  readonly prune: boolean;
  readonly steps: Step[];
  readonly faults: string[];
}

export const sensitiveAt = (p: ProjectPlan, path: Array<string | number>) => {
  const prefix = pathText([...p.at, ...path]);
  return [...p.fromEnv].some((f) => f === prefix || f.startsWith(`${prefix}.`) || f.startsWith(`${prefix}[`));
};

export const projectId = (ctx: RunContext, project: string): string => {
  const id = ctx.projectIds.get(project);
  if (id === undefined) throw new Error(`project "${project}" has no id yet`);
  return id;
};

export const monitorIdsOf = (ctx: RunContext, project: string, names: readonly string[]) =>
  names.map((name) => {
    const id = ctx.monitorIds.get(monitorKey(project, name));
    if (id === undefined) throw new Error(`monitor "${name}" of project "${project}" has no id`);
    return id;
  });

/** Every field of a new item, secrets shown as such. */
export const createdFields = (item: Record<string, unknown>, secret: (key: string) => boolean): FieldChange[] =>
  Object.entries(item).map(([field, after]) => ({ field, after, sensitive: secret(field) }));

/** `--prune`: a delete step for each item marked as the file's whose name the file no longer
 *  lists. An item made by hand carries no mark, and is never deleted. */
export const prune = <I extends { id: string; managed_by?: unknown }>(
  p: ProjectPlan,
  kind: string,
  items: readonly I[],
  nameOf: (item: I) => string,
  named: ReadonlySet<string>,
  path: string,
): void => {
  if (!p.prune) return;
  for (const item of items)
    if (isManaged(item.managed_by) && !named.has(nameOf(item)))
      p.steps.push({
        action: 'delete',
        kind,
        project: p.project.name,
        name: nameOf(item),
        note: 'made by the file, no longer in it',
        fields: [],
        run: (ctx) => ctx.client.send('DELETE', `${path}/${item.id}`).then(() => undefined),
      });
};
