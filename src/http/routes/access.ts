import { createProject, issueApiKey, restrictApiKey, revokeApiKey } from '../../commands/projects.ts';
import { type UserUpdate, changePassword, registerUser, rehashPassword, updateUser } from '../../commands/users.ts';
import type { CommandContext } from '../../commands/handle.ts';
import { NO_RESTRICTIONS } from '../../domain/api-keys.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import { NO_PASSWORD } from '../../domain/user.ts';
import type { LoginAttempt } from '../../views/login-throttle/port.ts';
import type { RouteDeps } from '../deps.ts';

import { HttpError } from '../middleware/errors.ts';
import type { accessOperations } from '../operations/access.ts';
import { type Handlers, created, noBody, ok } from '../operations/operation.ts';
import { afterPassword } from './factors.ts';
import { finishSignIn } from './sign-in.ts';

/** 429 with the seconds to wait, rounded up. */
export const tooManyAttempts = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new HttpError(429, 'too_many_requests', `too many failed logins: retry in ${seconds} s`, [], {
    'Retry-After': String(seconds),
  });
};

/** The socket's peer: the app does not trust X-Forwarded-For (`app.proxy` is false). */
export const clientAddress = (ctx: { request: { ip: string } }) => ctx.request.ip || 'unknown';

/** Applies a change to a user, waits for the access read model to show it, and forgets the
 *  user's cached state so this process checks their tokens against it at once. */
const changeUser = async (
  deps: RouteDeps,
  command: CommandContext,
  actorId: string,
  id: string,
  update: UserUpdate,
) => {
  const { position } = await updateUser(deps.commands, id, update, actorId, command);
  await deps.caughtUp(['access'], position);
  deps.users.invalidate(id);
};

/** Login, users, projects and API keys. */
export const accessHandlers: Handlers<typeof accessOperations, RouteDeps> = {
  login: async ({ body, ctx }, deps) => {
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
    // Made by a single sign-on: said plainly, so its user goes to their provider.
    if (user && user.password_hash === NO_PASSWORD && !user.disabled) {
      await deps.loginThrottle.failed(attempt);
      await deps.recordLogin({ ...attempt, ...seen, ok: false, at, reason: 'no_password' });
      throw new HttpError(401, 'unauthorized', 'this account has no password: sign in with single sign-on');
    }
    const matches = await passwords.verify(body.password, user?.password_hash ?? (await passwords.decoy()));
    // A disabled account answers as a wrong password does: the answer tells nothing about it.
    if (!user || !matches || user.disabled) {
      await deps.loginThrottle.failed(attempt);
      await deps.recordLogin({ ...attempt, ...seen, ok: false, at, reason: 'wrong_credentials' });
      throw new HttpError(401, 'unauthorized', 'wrong e-mail or password');
    }
    await deps.loginThrottle.succeeded(attempt);
    // A user with a second factor, or one the policy wants to enrol, is not signed in yet.
    const cookie = body.cookie === true;
    const next = await afterPassword(deps, user, cookie);
    if (next) await deps.recordLogin({ ...attempt, ...seen, ok: true, at, userId: user.id, pending: next.pending });
    if (passwords.needsRehash(user.password_hash)) {
      await rehashPassword(deps.commands, user.id, user.password_hash, body.password, {
        actor: `user:${user.id}`,
        correlationId: ctx.state.correlationId,
        now: deps.now,
      }).catch((err: unknown) =>
        deps.logger.warn({ err, user_id: user.id }, 'could not rehash the password at the current cost'),
      );
    }
    const { password_hash: _, ...view } = user;
    return ok(next ? next.answer : await finishSignIn(deps, ctx, view, 'password', { cookie }));
  },

  /** The caller: what a dashboard shows in its user menu and uses to hide what the role cannot do. */
  me: async ({ principal }, deps) => {
    const user = await deps.readModels.access.userById(principal.userId);
    if (!user) throw new HttpError(401, 'unauthorized', "this token's user no longer exists");
    return ok(user);
  },

  createUser: async ({ body, command }, deps) => {
    const { position } = await registerUser(deps.commands, body, command);
    await deps.caughtUp(['access'], position);
    const { password_hash: _, ...user } = (await deps.readModels.access.userByEmail(body.email.toLowerCase()))!;
    return created(user);
  },

  listUsers: async (_, deps) => ok(await deps.readModels.access.listUsers()),

  updateUser: async ({ params: { id }, body, principal, command }, deps) => {
    await changeUser(deps, command, principal.userId, id, body);
    return ok((await deps.readModels.access.userById(id))!);
  },

  disableUser: async ({ params: { id }, principal, command }, deps) => {
    await changeUser(deps, command, principal.userId, id, { disabled: true });
    return noBody(204);
  },

  /** Admins set anyone's password; everyone sets their own with their current one, a check the
   *  login throttle counts like a login. */
  setPassword: async ({ params: { id }, body, principal, command, ctx }, deps) => {
    const self = principal.userId === id;
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
        command,
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
    return noBody(204);
  },

  createProject: async ({ body: { name }, command }, deps) => {
    const { id, position } = await createProject(deps.commands, name, command);
    await deps.caughtUp(['access'], position);
    return created((await deps.readModels.access.getProject(id, { all: true }))!);
  },

  listProjects: async ({ principal }, deps) => ok(await deps.readModels.access.listProjects(principal.scope)),

  getProject: ({ resource }) => ok(resource),

  issueKey: async ({ resource: project, body: { name, ...restrictions }, command }, deps) => {
    const { issued, position } = await issueApiKey(
      deps.commands,
      project.id,
      name,
      { ...NO_RESTRICTIONS, ...restrictions },
      command,
    );
    await deps.caughtUp(['access'], position);
    return created(issued);
  },

  // Restricting a key in place (origins, rate) keeps it working where it is deployed.
  restrictKey: async ({ resource: project, params: { keyId }, body, command }, deps) => {
    const { position } = await restrictApiKey(deps.commands, project.id, keyId, body, command);
    await deps.caughtUp(['access'], position);
    deps.apiKeys.invalidate();
    return ok((await deps.readModels.access.listApiKeys(project.id)).find((k) => k.id === keyId)!);
  },

  listKeys: async ({ resource: project }, deps) => ok(await deps.readModels.access.listApiKeys(project.id)),

  revokeKey: async ({ resource: project, params: { keyId }, command }, deps) => {
    const { position } = await revokeApiKey(deps.commands, project.id, keyId, command);
    await deps.caughtUp(['access'], position);
    deps.apiKeys.invalidate();
    return noBody(204);
  },
};
