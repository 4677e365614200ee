import type { CommandContext, CommandDeps } from '../../commands/handle.ts';
import type { MonitorCreationDeps } from '../../commands/monitors.ts';
import type { Scope } from '../../domain/scope.ts';
import type { ReadModelKey } from '../../views/read-models.ts';
import type { RouteDeps } from '../deps.ts';
import { created, noBody, ok } from '../operations/operation.ts';

type Written = Promise<{ position: string | null }>;

/** A resource that belongs to one project, as its handlers see it. */
export interface ProjectResource<V extends { id: string }, C, U> {
  readModel: ReadModelKey;
  list(deps: RouteDeps, scope: Scope, projectId?: string): Promise<V[]>;
  get(deps: RouteDeps, id: string): Promise<V | null>;
  commands: {
    create(deps: MonitorCreationDeps, input: C, ctx: CommandContext): Promise<{ id: string; position: string | null }>;
    update(deps: CommandDeps, id: string, input: U, ctx: CommandContext): Written;
    remove(deps: CommandDeps, id: string, ctx: CommandContext): Written;
  };
}

/** List, create, read, update and delete of a project's resource (`mount` has applied who may
 *  see and change it). Every change answers once the read model shows it. */
export const projectResourceHandlers = <V extends { id: string }, C, U>(r: ProjectResource<V, C, U>) => {
  const viewAfter = async (deps: RouteDeps, id: string, position: string | null): Promise<V> => {
    await deps.caughtUp([r.readModel], position);
    return (await r.get(deps, id))!;
  };
  return {
    list: async (
      { query, principal }: { query: { project_id?: string }; principal: { scope: Scope } },
      deps: RouteDeps,
    ) => ok(await r.list(deps, principal.scope, query.project_id)),
    create: async ({ body, command }: { body: C; command: CommandContext }, deps: RouteDeps) => {
      const { id, position } = await r.commands.create(deps.commands, body, command);
      return created(await viewAfter(deps, id, position));
    },
    get: ({ resource }: { resource: V }) => ok(resource),
    update: async ({ resource, body, command }: { resource: V; body: U; command: CommandContext }, deps: RouteDeps) => {
      const { position } = await r.commands.update(deps.commands, resource.id, body, command);
      return ok(await viewAfter(deps, resource.id, position));
    },
    remove: async ({ resource, command }: { resource: V; command: CommandContext }, deps: RouteDeps) => {
      const { position } = await r.commands.remove(deps.commands, resource.id, command);
      await deps.caughtUp([r.readModel], position);
      return noBody(204);
    },
  };
};
