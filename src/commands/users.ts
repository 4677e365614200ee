import type { Role } from '../domain/codecs.ts';
import { invalid } from '../domain/errors.ts';
import { projectStream, userStream } from '../domain/streams.ts';
import { userDecider, userIdForEmail } from '../domain/user.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';
import { hashPassword } from './passwords.ts';

export interface NewUser { email: string; password: string; role: Role; project_ids: string[] }

/** Admins see every project; other roles the projects listed, each of which must exist. */
export const registerUser = async (deps: CommandDeps, user: NewUser, ctx: CommandContext) => {
  const projectIds = user.role === 'admin' ? [] : [...new Set(user.project_ids)];
  const missing: number[] = [];
  for (const [i, id] of projectIds.entries()) {
    if ((await deps.log.readStream(projectStream(id), { maxCount: 1 })).length === 0) missing.push(i);
  }
  if (missing.length > 0) {
    throw invalid('user', missing.map((i) => ({ path: `project_ids.${i}`, message: 'is not a known project' })));
  }
  const id = userIdForEmail(user.email);
  const handled = await handle(deps, userStream(id), userDecider, {
    type: 'RegisterUser', user_id: id, email: user.email.toLowerCase(), password_hash: await hashPassword(user.password),
    role: user.role, project_ids: projectIds, at: ctx.now().toISOString(),
  }, ctx);
  return { ...handled, id };
};
