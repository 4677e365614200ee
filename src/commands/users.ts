import { createHash } from 'node:crypto';
import type { Role } from '../domain/codecs.ts';
import { DomainError } from '../domain/errors.ts';
import { WrongExpectedRevisionError } from '../log/event-log.ts';
import type { UserView } from '../views/ports.ts';
import { newEvent, type CommandContext, type CommandDeps } from './context.ts';
import { hashPassword } from './passwords.ts';
import { projectStream } from './projects.ts';

/** A user's id is derived from the e-mail, so its stream doubles as the uniqueness guard:
 *  a second registration of the same address fails on `no_stream`, even across processes. */
export const userIdForEmail = (email: string): string => {
  const h = createHash('sha256').update(`watchlog-user:${email.toLowerCase()}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export interface NewUser { email: string; password: string; role: Role; project_ids: string[] }

export const registerUser = async (deps: CommandDeps, user: NewUser, ctx: CommandContext): Promise<UserView> => {
  const projectIds = user.role === 'admin' ? [] : [...new Set(user.project_ids)];
  const missing: number[] = [];
  for (const [i, id] of projectIds.entries()) {
    if ((await deps.log.readStream(projectStream(id), { maxCount: 1 })).length === 0) missing.push(i);
  }
  if (missing.length > 0) {
    throw new DomainError('validation_error', 'unknown project', missing.map((i) => ({ path: `project_ids.${i}`, message: 'no such project' })));
  }
  const registered = {
    user_id: userIdForEmail(user.email), email: user.email.toLowerCase(), password_hash: await hashPassword(user.password),
    role: user.role, project_ids: projectIds, registered_at: ctx.now().toISOString(),
  };
  try {
    const { position } = await deps.log.append(`user-${registered.user_id}`, [newEvent('UserRegistered', registered, ctx)], 'no_stream');
    await deps.accessSettled(position);
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) throw new DomainError('conflict', 'a user with this e-mail already exists');
    throw error;
  }
  return { id: registered.user_id, email: registered.email, role: registered.role, project_ids: projectIds, created_at: registered.registered_at };
};
