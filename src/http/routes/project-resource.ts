import type Router from '@koa/router';
import * as t from 'io-ts';
import type { CommandContext, CommandDeps } from '../../commands/handle.ts';
import type { MonitorCreationDeps } from '../../commands/monitors.ts';
import { Uuid } from '../../domain/codecs.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import type { Scope } from '../../domain/scope.ts';
import type { ReadModelKey } from '../../views/read-models.ts';
import {
  commandContext,
  principalOf,
  requireRole,
  visibleOr404,
  visibleProjectFilter,
  type Principal,
} from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

export const ListQuery = t.exact(t.partial({ project_id: Uuid }));

type Written = Promise<{ position: string | null }>;

/** A resource that belongs to one project, as its routes see it. */
export interface ProjectResource<V extends { id: string }, C extends { project_id: string }, U> {
  /** The collection's path, e.g. `/v1/monitors`. */
  path: string;
  /** Its name in messages, e.g. `monitor`. */
  what: string;
  readModel: ReadModelKey;
  queries: { list(scope: Scope, projectId?: string): Promise<V[]>; get(id: string, scope: Scope): Promise<V | null> };
  /** The bodies of create and update. */
  inputs: readonly [t.Type<C, unknown, unknown>, t.Type<U, unknown, unknown>];
  /** What is wrong with a decoded body beyond its shape (a 400 like a decoding error), for whom. */
  problems?: {
    create?(input: C, principal: Principal): ErrorDetail[];
    update?(input: U, principal: Principal): ErrorDetail[];
  };
  commands: {
    create(deps: MonitorCreationDeps, input: C, ctx: CommandContext): Promise<{ id: string; position: string | null }>;
    update(deps: CommandDeps, id: string, input: U, ctx: CommandContext): Written;
    remove(deps: CommandDeps, id: string, ctx: CommandContext): Written;
  };
}

/** List, create, read, update and delete of a project's resource. Everyone reads those of the
 *  projects they see; admins and members change them; one of a project the caller cannot see is
 *  404, never a hint that it exists. Every change answers once the read model shows it. Returns
 *  the visible-or-404 lookup, for the resource's other routes. */
export const projectResourceRoutes = <V extends { id: string }, C extends { project_id: string }, U>(
  router: Router<AppState>,
  deps: RouteDeps,
  r: ProjectResource<V, C, U>,
) => {
  const context = (principal: Principal, correlationId: string) => commandContext(principal, correlationId, deps.now);
  const visible = (principal: Principal, id: string | undefined) =>
    visibleOr404(id, r.what, (uuid) => r.queries.get(uuid, principal.scope));
  const decode = <A>(
    codec: t.Type<A, unknown, unknown>,
    body: unknown,
    principal: Principal,
    problemsOf?: (input: A, principal: Principal) => ErrorDetail[],
  ): A => {
    const input = decodeOrThrow(codec, body, r.what);
    const details = problemsOf?.(input, principal) ?? [];
    if (details.length > 0)
      throw new HttpError(
        400,
        'validation_error',
        `invalid ${r.what}: ${details.map((d) => d.path).join(', ')}`,
        details,
      );
    return input;
  };
  const viewAfter = async (id: string, position: string | null) => {
    await deps.caughtUp([r.readModel], position);
    return r.queries.get(id, { all: true });
  };

  router.get(r.path, ...deps.jwt, async (ctx) => {
    const { project_id } = readQuery(ctx.query, ListQuery);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, project_id);
    ctx.body = await r.queries.list(scope, project_id);
  });

  router.post(r.path, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin', 'member');
    const input = decode(r.inputs[0], await readJsonBody(ctx, deps), principal, r.problems?.create);
    await visibleOr404(input.project_id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));
    const { id, position } = await r.commands.create(deps.commands, input, context(principal, ctx.state.correlationId));
    ctx.status = 201;
    ctx.body = await viewAfter(id, position);
  });

  router.get(`${r.path}/:id`, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = await visible(principalOf(ctx.state), ctx.params.id);
  });

  router.put(`${r.path}/:id`, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const found = await visible(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const input = decode(r.inputs[1], await readJsonBody(ctx, deps), principal, r.problems?.update);
    const { position } = await r.commands.update(
      deps.commands,
      found.id,
      input,
      context(principal, ctx.state.correlationId),
    );
    ctx.body = await viewAfter(found.id, position);
  });

  router.delete(`${r.path}/:id`, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const found = await visible(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const { position } = await r.commands.remove(deps.commands, found.id, context(principal, ctx.state.correlationId));
    await deps.caughtUp([r.readModel], position);
    ctx.status = 204;
  });

  return { visible };
};
