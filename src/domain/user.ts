import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { Role } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** A user's id is derived from the e-mail, so its stream doubles as the uniqueness guard: a
 *  second registration of the same address finds the stream taken, even across processes. */
export const userIdForEmail = (email: string): string => {
  const h = createHash('sha256').update(`watchlog-user:${email.toLowerCase()}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The password hash of a user who has none (created by a single sign-on): no password matches it. */
export const NO_PASSWORD = '';

/** The facts about a user. A password change, a change of role or projects, and disabling make
 *  every token issued before them invalid (the access read model's `tokens_valid_after`); a rehash
 *  (the same password at a higher cost) does not. */
export const userEvents = {
  UserRegistered: t.type({
    user_id: t.string,
    email: t.string,
    password_hash: t.string,
    role: Role,
    project_ids: t.array(t.string),
    registered_at: t.string,
  }),
  UserAccessChanged: t.type({ user_id: t.string, role: Role, project_ids: t.array(t.string), changed_at: t.string }),
  UserDisabled: t.type({ user_id: t.string, disabled_at: t.string }),
  UserEnabled: t.type({ user_id: t.string, enabled_at: t.string }),
  UserPasswordChanged: t.type({ user_id: t.string, password_hash: t.string, changed_at: t.string }),
  UserPasswordRehashed: t.type({ user_id: t.string, password_hash: t.string, rehashed_at: t.string }),
} as const;

export interface UserState {
  readonly registered: boolean;
  readonly id: string;
  readonly role: Role;
  readonly projectIds: readonly string[];
  readonly disabled: boolean;
  readonly passwordHash: string;
}

export const initialUser: UserState = {
  registered: false,
  id: '',
  role: 'auditor',
  projectIds: [],
  disabled: false,
  passwordHash: '',
};

export const evolveUser = (state: UserState, event: DomainEvent): UserState => {
  switch (event.type) {
    case 'UserRegistered': {
      const { user_id, role, project_ids, password_hash } = event.data;
      return {
        registered: true,
        id: user_id,
        role,
        projectIds: project_ids,
        disabled: false,
        passwordHash: password_hash,
      };
    }
    case 'UserAccessChanged':
      return { ...state, role: event.data.role, projectIds: event.data.project_ids };
    case 'UserDisabled':
      return { ...state, disabled: true };
    case 'UserEnabled':
      return { ...state, disabled: false };
    case 'UserPasswordChanged':
    case 'UserPasswordRehashed':
      return { ...state, passwordHash: event.data.password_hash };
    default:
      return state;
  }
};

export type UserCommand =
  | {
      type: 'RegisterUser';
      user_id: string;
      email: string;
      password_hash: string;
      role: Role;
      project_ids: string[];
      at: string;
    }
  /** Any of role, projects and the disabled flag; `by` is the acting user's id (null: the system). */
  | { type: 'UpdateUser'; role?: Role; project_ids?: string[]; disabled?: boolean; by: string | null; at: string }
  | { type: 'ChangePassword'; password_hash: string; at: string }
  /** The same password at the current cost; nothing when the hash changed since it was checked. */
  | { type: 'RehashPassword'; previous_hash: string; password_hash: string; at: string };

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

const assertRegistered = (state: UserState): void => {
  if (!state.registered) throw notFound('user');
};

const decideUpdate = (command: Extract<UserCommand, { type: 'UpdateUser' }>, state: UserState): DomainEvent[] => {
  assertRegistered(state);
  const role = command.role ?? state.role;
  // Admins see every project: their list is empty. A role given without projects keeps them.
  const projectIds = role === 'admin' ? [] : [...new Set(command.project_ids ?? state.projectIds)];
  const accessChanged = role !== state.role || !sameSet(projectIds, state.projectIds);
  const disable = command.disabled === true && !state.disabled;
  const enable = command.disabled === false && state.disabled;
  // Whoever acts keeps their own access: so the last active admin can never lock everyone out.
  if (command.by === state.id && (disable || (accessChanged && role !== state.role))) {
    throw new DomainError('conflict', 'you cannot disable your own account or change your own role');
  }
  const events: DomainEvent[] = [];
  if (accessChanged)
    events.push({
      type: 'UserAccessChanged',
      data: { user_id: state.id, role, project_ids: projectIds, changed_at: command.at },
    });
  if (disable) events.push({ type: 'UserDisabled', data: { user_id: state.id, disabled_at: command.at } });
  if (enable) events.push({ type: 'UserEnabled', data: { user_id: state.id, enabled_at: command.at } });
  return events;
};

export const userDecider: Decider<UserState, UserCommand> = {
  initialState: initialUser,
  evolve: evolveUser,
  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser': {
        if (state.registered) throw new DomainError('conflict', 'a user with this e-mail already exists');
        const { user_id, email, password_hash, role, project_ids, at } = command;
        return [
          { type: 'UserRegistered', data: { user_id, email, password_hash, role, project_ids, registered_at: at } },
        ];
      }
      case 'UpdateUser':
        return decideUpdate(command, state);
      case 'ChangePassword':
        assertRegistered(state);
        return [
          {
            type: 'UserPasswordChanged',
            data: { user_id: state.id, password_hash: command.password_hash, changed_at: command.at },
          },
        ];
      case 'RehashPassword':
        assertRegistered(state);
        if (state.passwordHash !== command.previous_hash) return [];
        return [
          {
            type: 'UserPasswordRehashed',
            data: { user_id: state.id, password_hash: command.password_hash, rehashed_at: command.at },
          },
        ];
    }
  },
};
