import { createHash } from 'node:crypto';
import type { Role } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** A user's id is derived from the e-mail, so its stream doubles as the uniqueness guard: a
 *  second registration of the same address finds the stream taken, even across processes. */
export const userIdForEmail = (email: string): string => {
  const h = createHash('sha256').update(`watchlog-user:${email.toLowerCase()}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export interface UserState { readonly registered: boolean }

export type UserCommand = {
  type: 'RegisterUser'; user_id: string; email: string; password_hash: string; role: Role; project_ids: string[]; at: string;
};

export const userDecider: Decider<UserState, UserCommand> = {
  initialState: { registered: false },
  evolve: (state: UserState, event: DomainEvent): UserState => (event.type === 'UserRegistered' ? { registered: true } : state),
  decide(command, state) {
    if (state.registered) throw new DomainError('conflict', 'a user with this e-mail already exists');
    const { user_id, email, password_hash, role, project_ids, at } = command;
    return [{ type: 'UserRegistered', data: { user_id, email, password_hash, role, project_ids, registered_at: at } }];
  },
};
