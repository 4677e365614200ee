import type Router from '@koa/router';
import * as t from 'io-ts';
import { Email, Role, Uuid, boundedString, closed, isUuid } from '../../domain/codecs.ts';
import { createProject, issueApiKey, revokeApiKey } from '../../commands/projects.ts';
import { registerUser } from '../../commands/users.ts';
import { decoyHash, verifyPassword } from '../../commands/passwords.ts';
import { commandContext, principalOf, requireRole, signToken, visibleOr404, type Principal } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { notFound } from '../../domain/errors.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** Bodies refuse unknown fields: a misspelt field is a 400 naming it. */
const LoginBody = closed(t.type({ email: t.string, password: t.string }), 'field', 'a login');
const NewUserBody = closed(t.type({
  email: Email,
  password: boundedString(8, 1024),
  role: Role,
  project_ids: t.array(Uuid),
}), 'field', 'a user');
const NameBody = closed(t.type({ name: boundedString(1, 200) }), 'field', 'a name');

/** Login, users, projects and API keys. Admins create projects and users; admins and members
 *  manage the keys of projects they see; auditors only read. */
export const accessRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const jwt = deps.jwt;
  const context = (principal: Principal, correlationId: string) => commandContext(principal, correlationId, deps.now);
  /** A project the caller may see, or 404 (never a hint that it exists elsewhere). */
  const visibleProject = (principal: Principal, id: string | undefined) =>
    visibleOr404(id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));

  router.post('/v1/auth/login', async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const { email, password } = decodeOrThrow(LoginBody, await readJsonBody(ctx, deps.bodyLimitBytes), 'login');
    const user = await deps.readModels.access.userByEmail(email.trim().toLowerCase());
    const ok = await verifyPassword(password, user?.password_hash ?? await decoyHash);
    if (!user || !ok) throw new HttpError(401, 'unauthorized', 'wrong e-mail or password');
    // Token expiry follows the wall clock, as koa-jwt's verification does.
    ctx.body = signToken(user, deps.jwtSecret, deps.jwtTtlSeconds, new Date());
  });

  router.post('/v1/users', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    const body = decodeOrThrow(NewUserBody, await readJsonBody(ctx, deps.bodyLimitBytes), 'user');
    const { position } = await registerUser(deps.commands, body, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['access'], position);
    const { password_hash: _, ...user } = (await deps.readModels.access.userByEmail(body.email.toLowerCase()))!;
    ctx.status = 201;
    ctx.body = user;
  });

  router.get('/v1/users', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    requireRole(principalOf(ctx.state), 'admin');
    ctx.body = await deps.readModels.access.listUsers();
  });

  router.post('/v1/projects', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    const { name } = decodeOrThrow(NameBody, await readJsonBody(ctx, deps.bodyLimitBytes), 'project');
    const { id, position } = await createProject(deps.commands, name, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['access'], position);
    ctx.status = 201;
    ctx.body = await deps.readModels.access.getProject(id, { all: true });
  });

  router.get('/v1/projects', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = await deps.readModels.access.listProjects(principalOf(ctx.state).scope);
  });

  router.get('/v1/projects/:id', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = await visibleProject(principalOf(ctx.state), ctx.params.id);
  });

  router.post('/v1/projects/:id/api-keys', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleProject(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const { name } = decodeOrThrow(NameBody, await readJsonBody(ctx, deps.bodyLimitBytes), 'API key');
    const { issued, position } = await issueApiKey(deps.commands, project.id, name, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['access'], position);
    ctx.status = 201;
    ctx.body = issued;
  });

  router.get('/v1/projects/:id/api-keys', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const project = await visibleProject(principalOf(ctx.state), ctx.params.id);
    ctx.body = await deps.readModels.access.listApiKeys(project.id);
  });

  router.delete('/v1/projects/:id/api-keys/:keyId', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleProject(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const keyId = ctx.params.keyId ?? '';
    if (!isUuid(keyId)) throw notFound('API key');
    const { position } = await revokeApiKey(deps.commands, project.id, keyId.toLowerCase(), context(principal, ctx.state.correlationId));
    await deps.caughtUp(['access'], position);
    deps.apiKeys.invalidate();
    ctx.status = 204;
  });
};

