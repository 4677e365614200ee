import type Router from '@koa/router';
import * as t from 'io-ts';
import { Email, Role, Uuid, boundedString, closed, isUuid } from '../../domain/codecs.ts';
import { createProject, issueApiKey, restrictApiKey, revokeApiKey } from '../../commands/projects.ts';
import { ApiKeyRestrictions, NO_RESTRICTIONS } from '../../domain/api-keys.ts';
import { changePassword, registerUser, rehashPassword, updateUser, type UserUpdate } from '../../commands/users.ts';
import {
  commandContext,
  principalOf,
  requireRole,
  signToken,
  visibleOr404,
  type Principal,
} from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import type { LoginAttempt } from '../../views/login-throttle/port.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** Bodies refuse unknown fields: a misspelt field is a 400 naming it. */
export const LoginBody = closed(t.type({ email: t.string, password: t.string }), 'field', 'a login');
export const NewUserBody = closed(
  t.type({
    email: Email,
    password: boundedString(8, 1024),
    role: Role,
    project_ids: t.array(Uuid),
  }),
  'field',
  'a user',
);
export const NameBody = closed(t.type({ name: boundedString(1, 200) }), 'field', 'a name');
export const NewKeyBody = closed(
  t.intersection([t.type({ name: boundedString(1, 200) }), ApiKeyRestrictions]),
  'field',
  'an API key',
);
export const KeyUpdateBody = closed(ApiKeyRestrictions, 'field', 'an API key update');
export const UserUpdateBody = closed(
  t.partial({ role: Role, project_ids: t.array(Uuid), disabled: t.boolean }),
  'field',
  'a user update',
);
export const PasswordBody = closed(
  t.intersection([t.type({ password: boundedString(8, 1024) }), t.partial({ current_password: t.string })]),
  'field',
  'a password change',
);

/** 429 with the seconds to wait, rounded up. */
const tooManyAttempts = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new HttpError(429, 'too_many_requests', `too many failed logins: retry in ${seconds} s`, [], {
    'Retry-After': String(seconds),
  });
};

/** Login, users, projects and API keys. Admins create projects and users; admins and members
 *  manage the keys of projects they see; auditors only read. */
export const accessRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const jwt = deps.jwt;
  const context = (principal: Principal, correlationId: string) => commandContext(principal, correlationId, deps.now);
  /** A project the caller may see, or 404 (never a hint that it exists elsewhere). */
  const visibleProject = (principal: Principal, id: string | undefined) =>
    visibleOr404(id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));

  /** The socket's peer: the app does not trust X-Forwarded-For (`app.proxy` is false). */
  const clientAddress = (ctx: { request: { ip: string } }) => ctx.request.ip || 'unknown';

  router.post('/v1/auth/login', async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const body = decodeOrThrow(LoginBody, await readJsonBody(ctx, deps), 'login');
    const attempt: LoginAttempt = { email: body.email.trim().toLowerCase(), address: clientAddress(ctx) };
    // The service clock, as every other event of the service has (the token's expiry alone
    // follows the wall clock, as koa-jwt checks it).
    const at = deps.now();
    const seen = {
      requestId: ctx.state.correlationId,
      ...(ctx.get('user-agent') ? { userAgent: ctx.get('user-agent') } : {}),
    };
    // Asked before any hashing: a refused attempt costs no scrypt.
    const retryAfterMs = await deps.loginThrottle.retryAfterMs(attempt);
    if (retryAfterMs > 0) {
      await deps.recordLogin({ ...attempt, ...seen, ok: false, at, reason: 'throttled' });
      throw tooManyAttempts(retryAfterMs);
    }
    const passwords = deps.commands.passwords;
    const user = await deps.readModels.access.userByEmail(attempt.email);
    const matches = await passwords.verify(body.password, user?.password_hash ?? (await passwords.decoy()));
    // A disabled account answers as a wrong password does: the answer tells nothing about it.
    if (!user || !matches || user.disabled) {
      await deps.loginThrottle.failed(attempt);
      await deps.recordLogin({ ...attempt, ...seen, ok: false, at, reason: 'wrong_credentials' });
      throw new HttpError(401, 'unauthorized', 'wrong e-mail or password');
    }
    await deps.loginThrottle.succeeded(attempt);
    await deps.recordLogin({ ...attempt, ...seen, ok: true, at, userId: user.id });
    if (passwords.needsRehash(user.password_hash)) {
      await rehashPassword(deps.commands, user.id, user.password_hash, body.password, {
        actor: `user:${user.id}`,
        correlationId: ctx.state.correlationId,
        now: deps.now,
      }).catch((err: unknown) =>
        deps.logger.warn({ err, user_id: user.id }, 'could not rehash the password at the current cost'),
      );
    }
    // Token expiry follows the wall clock, as koa-jwt's verification does.
    ctx.body = signToken(user, deps.jwtSecret, deps.jwtTtlSeconds, new Date());
  });

  router.post('/v1/users', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    const body = decodeOrThrow(NewUserBody, await readJsonBody(ctx, deps), 'user');
    const { position } = await registerUser(deps.commands, body, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['access'], position);
    const { password_hash: _, ...user } = (await deps.readModels.access.userByEmail(body.email.toLowerCase()))!;
    ctx.status = 201;
    ctx.body = user;
  });

  /** The caller: what a dashboard shows in its user menu and uses to hide what the role cannot do. */
  router.get('/v1/auth/me', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const user = await deps.readModels.access.userById(principalOf(ctx.state).userId);
    if (!user) throw new HttpError(401, 'unauthorized', "this token's user no longer exists");
    ctx.body = user;
  });

  router.get('/v1/users', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    requireRole(principalOf(ctx.state), 'admin');
    ctx.body = await deps.readModels.access.listUsers();
  });

  /** A user id from the path (a uuid), or 404. */
  const userIdOf = (id: string | undefined): string => {
    if (!id || !isUuid(id)) throw notFound('user');
    return id.toLowerCase();
  };

  /** Applies a change to a user, waits for the access read model to show it, and forgets the
   *  user's cached state so this process checks their tokens against it at once. */
  const changeUser = async (principal: Principal, correlationId: string, id: string, update: UserUpdate) => {
    const { position } = await updateUser(
      deps.commands,
      id,
      update,
      principal.userId,
      context(principal, correlationId),
    );
    await deps.caughtUp(['access'], position);
    deps.users.invalidate(id);
  };

  router.put('/v1/users/:id', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    const id = userIdOf(ctx.params.id);
    const update = decodeOrThrow(UserUpdateBody, await readJsonBody(ctx, deps), 'user update');
    await changeUser(principal, ctx.state.correlationId, id, update);
    ctx.body = await deps.readModels.access.userById(id);
  });

  router.delete('/v1/users/:id', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    await changeUser(principal, ctx.state.correlationId, userIdOf(ctx.params.id), { disabled: true });
    ctx.status = 204;
  });

  /** Admins set anyone's password; everyone sets their own with their current one, a check the
   *  login throttle counts like a login. */
  router.post('/v1/users/:id/password', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const id = userIdOf(ctx.params.id);
    const self = principal.userId === id;
    if (!self) requireRole(principal, 'admin');
    const body = decodeOrThrow(PasswordBody, await readJsonBody(ctx, deps), 'password change');
    if (self && body.current_password === undefined) {
      throw new HttpError(400, 'validation_error', 'invalid password change: current_password', [
        { path: 'current_password', message: 'required to change your own password' },
      ]);
    }
    const user = await deps.readModels.access.userById(id);
    if (!user) throw notFound('user');
    const attempt: LoginAttempt = { email: user.email, address: clientAddress(ctx) };
    if (self) {
      const retryAfterMs = await deps.loginThrottle.retryAfterMs(attempt);
      if (retryAfterMs > 0) throw tooManyAttempts(retryAfterMs);
    }
    let position: string | null;
    try {
      ({ position } = await changePassword(
        deps.commands,
        id,
        body.password,
        context(principal, ctx.state.correlationId),
        self ? body.current_password : undefined,
      ));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'forbidden') await deps.loginThrottle.failed(attempt);
      throw error;
    }
    // A new password is a fresh start: the account's failed logins and lock are forgotten.
    await deps.loginThrottle.forgetAccount(user.email);
    await deps.caughtUp(['access'], position);
    deps.users.invalidate(id);
    ctx.status = 204;
  });

  router.post('/v1/projects', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin');
    const { name } = decodeOrThrow(NameBody, await readJsonBody(ctx, deps), 'project');
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
    const { name, ...restrictions } = decodeOrThrow(NewKeyBody, await readJsonBody(ctx, deps), 'API key');
    const { issued, position } = await issueApiKey(
      deps.commands,
      project.id,
      name,
      { ...NO_RESTRICTIONS, ...restrictions },
      context(principal, ctx.state.correlationId),
    );
    await deps.caughtUp(['access'], position);
    ctx.status = 201;
    ctx.body = issued;
  });

  // Restricting a key in place (origins, rate) keeps it working where it is deployed.
  router.put('/v1/projects/:id/api-keys/:keyId', ...jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleProject(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const keyId = (ctx.params.keyId ?? '').toLowerCase();
    if (!isUuid(keyId)) throw notFound('API key');
    const changes = decodeOrThrow(KeyUpdateBody, await readJsonBody(ctx, deps), 'API key update');
    const { position } = await restrictApiKey(
      deps.commands,
      project.id,
      keyId,
      changes,
      context(principal, ctx.state.correlationId),
    );
    await deps.caughtUp(['access'], position);
    deps.apiKeys.invalidate();
    ctx.body = (await deps.readModels.access.listApiKeys(project.id)).find((k) => k.id === keyId);
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
    const { position } = await revokeApiKey(
      deps.commands,
      project.id,
      keyId.toLowerCase(),
      context(principal, ctx.state.correlationId),
    );
    await deps.caughtUp(['access'], position);
    deps.apiKeys.invalidate();
    ctx.status = 204;
  });
};
