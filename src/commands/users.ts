import type { Role } from '../domain/codecs.ts';
import { DomainError, invalid, notFound } from '../domain/errors.ts';
import { projectStream, userStream } from '../domain/streams.ts';
import { NO_PASSWORD, userDecider, userIdForEmail } from '../domain/user.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';
import type { Passwords } from './passwords.ts';

/** What the user commands need besides the log: the password hasher (its cost is the
 *  deployment's, set where the process is composed). */
export interface UserCommandDeps extends CommandDeps {
  readonly passwords: Passwords;
}

export interface NewUser {
  email: string;
  password: string;
  role: Role;
  project_ids: string[];
}

/** Every project named must exist in the log; else a validation error naming each missing one. */
const assertProjectsExist = async (deps: CommandDeps, projectIds: readonly string[]) => {
  const missing: number[] = [];
  for (const [i, id] of projectIds.entries()) {
    if ((await deps.log.readStream(projectStream(id), { maxCount: 1 })).length === 0) missing.push(i);
  }
  if (missing.length > 0) {
    throw invalid(
      'user',
      missing.map((i) => ({ path: `project_ids.${i}`, message: 'is not a known project' })),
    );
  }
};

/** Admins see every project; other roles the projects listed, each of which must exist. */
const register = async (
  deps: CommandDeps,
  user: Omit<NewUser, 'password'>,
  /** Asked once the projects are known to exist: a refused registration costs no hashing. */
  passwordHash: () => Promise<string>,
  ctx: CommandContext,
) => {
  const projectIds = user.role === 'admin' ? [] : [...new Set(user.project_ids)];
  await assertProjectsExist(deps, projectIds);
  const id = userIdForEmail(user.email);
  const handled = await handle(
    deps,
    userStream(id),
    userDecider,
    {
      type: 'RegisterUser',
      user_id: id,
      email: user.email.toLowerCase(),
      password_hash: await passwordHash(),
      role: user.role,
      project_ids: projectIds,
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

export const registerUser = async (deps: UserCommandDeps, user: NewUser, ctx: CommandContext) =>
  register(deps, user, () => deps.passwords.hash(user.password), ctx);

/** A user created by a single sign-on (just in time): no password (an empty hash, which no
 *  password matches), the role and projects the provider's mapping grants. */
export const provisionUser = (deps: CommandDeps, user: Omit<NewUser, 'password'>, ctx: CommandContext) =>
  register(deps, user, async () => NO_PASSWORD, ctx);

export interface UserUpdate {
  role?: Role;
  project_ids?: string[];
  disabled?: boolean;
}

/** Role, projects and the disabled flag of a user; `by` is the acting user (who may not disable
 *  or demote themself). Records nothing when nothing changes. */
export const updateUser = async (
  deps: CommandDeps,
  userId: string,
  update: UserUpdate,
  by: string | null,
  ctx: CommandContext,
) => {
  const loaded = await load(deps.log, userStream(userId), userDecider);
  if (!loaded.state.registered) throw notFound('user');
  if (update.project_ids !== undefined && (update.role ?? loaded.state.role) !== 'admin')
    await assertProjectsExist(deps, update.project_ids);
  return handle(
    deps,
    userStream(userId),
    userDecider,
    { type: 'UpdateUser', ...update, by, at: ctx.now().toISOString() },
    ctx,
    loaded,
  );
};

/** A new password: every token issued before it is refused from then on. With
 *  `currentPassword` (a user changing their own), that must match the password in the log, else
 *  `forbidden`. */
export const changePassword = async (
  deps: UserCommandDeps,
  userId: string,
  password: string,
  ctx: CommandContext,
  currentPassword?: string,
) => {
  const loaded = await load(deps.log, userStream(userId), userDecider);
  if (!loaded.state.registered) throw notFound('user');
  if (currentPassword !== undefined && !(await deps.passwords.verify(currentPassword, loaded.state.passwordHash))) {
    throw new DomainError('forbidden', 'current password is wrong');
  }
  const command = {
    type: 'ChangePassword' as const,
    password_hash: await deps.passwords.hash(password),
    at: ctx.now().toISOString(),
  };
  return handle(deps, userStream(userId), userDecider, command, ctx, loaded);
};

/** The password just checked against `previousHash`, hashed again at the current cost. */
export const rehashPassword = async (
  deps: UserCommandDeps,
  userId: string,
  previousHash: string,
  password: string,
  ctx: CommandContext,
) =>
  handle(
    deps,
    userStream(userId),
    userDecider,
    {
      type: 'RehashPassword',
      previous_hash: previousHash,
      password_hash: await deps.passwords.hash(password),
      at: ctx.now().toISOString(),
    },
    ctx,
  );
