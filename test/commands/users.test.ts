import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import { userDecider, userIdForEmail, type UserCommand } from '../../src/domain/user.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(userDecider);

const U = userIdForEmail('ana@example.com');
const P = '0b7c2a4e-1111-4a4a-8a8a-000000000001';
const T0 = '2026-11-23T10:00:00.000Z';

const register: UserCommand = {
  type: 'RegisterUser',
  user_id: U,
  email: 'ana@example.com',
  password_hash: 'scrypt$16384$8$1$salt$hash',
  role: 'member',
  project_ids: [P],
  at: T0,
};
const registered: DomainEvent = {
  type: 'UserRegistered',
  data: {
    user_id: U,
    email: 'ana@example.com',
    password_hash: 'scrypt$16384$8$1$salt$hash',
    role: 'member',
    project_ids: [P],
    registered_at: T0,
  },
};

test('RegisterUser on a free e-mail registers the user with the hash, role and projects', (t) => {
  spec(t).given([]).when(register).then([registered]);
});

test('RegisterUser again for the same e-mail is a conflict, whatever the role or password', (t) => {
  spec(t)
    .given([registered])
    .when({ ...register, role: 'admin', project_ids: [], password_hash: 'scrypt$other' })
    .thenThrows({ code: 'conflict', message: 'a user with this e-mail already exists' });
});

// The stream is the uniqueness guard only if the id ignores case: otherwise Ana@ and ana@ would
// be two streams and two users.
test('the user id derives from the e-mail case-insensitively, and differs between addresses', (t) => {
  t.is(userIdForEmail('Ana@Example.COM'), U);
  t.not(userIdForEmail('bob@example.com'), U);
  t.regex(U, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

const ADMIN_ID = userIdForEmail('root@example.com');
const P2 = '0b7c2a4e-1111-4a4a-8a8a-000000000002';
const T1 = '2026-11-23T11:00:00.000Z';
const update = (fields: Partial<Extract<UserCommand, { type: 'UpdateUser' }>>): UserCommand => ({
  type: 'UpdateUser',
  by: ADMIN_ID,
  at: T1,
  ...fields,
});
const disabledEvent: DomainEvent = { type: 'UserDisabled', data: { user_id: U, disabled_at: T1 } };

test('UpdateUser changes role and projects in one event; the same values record nothing', (t) => {
  spec(t)
    .given([registered])
    .when(update({ role: 'auditor', project_ids: [P, P2, P] }))
    .then([{ type: 'UserAccessChanged', data: { user_id: U, role: 'auditor', project_ids: [P, P2], changed_at: T1 } }]);
  spec(t)
    .given([registered])
    .when(update({ role: 'member', project_ids: [P] }))
    .thenNothing();
  spec(t).given([registered]).when(update({})).thenNothing();
});

test('UpdateUser: a role without projects keeps them; an admin has none', (t) => {
  spec(t)
    .given([registered])
    .when(update({ role: 'auditor' }))
    .then([{ type: 'UserAccessChanged', data: { user_id: U, role: 'auditor', project_ids: [P], changed_at: T1 } }]);
  spec(t)
    .given([registered])
    .when(update({ role: 'admin', project_ids: [P2] }))
    .then([{ type: 'UserAccessChanged', data: { user_id: U, role: 'admin', project_ids: [], changed_at: T1 } }]);
});

test('UpdateUser disables and enables once each; together with an access change, both events', (t) => {
  spec(t)
    .given([registered])
    .when(update({ disabled: true }))
    .then([disabledEvent]);
  spec(t)
    .given([registered, disabledEvent])
    .when(update({ disabled: true }))
    .thenNothing();
  spec(t)
    .given([registered, disabledEvent])
    .when(update({ disabled: false }))
    .then([{ type: 'UserEnabled', data: { user_id: U, enabled_at: T1 } }]);
  spec(t)
    .given([registered])
    .when(update({ disabled: false }))
    .thenNothing();
  spec(t)
    .given([registered])
    .when(update({ project_ids: [P2], disabled: true }))
    .then([
      { type: 'UserAccessChanged', data: { user_id: U, role: 'member', project_ids: [P2], changed_at: T1 } },
      disabledEvent,
    ]);
});

test('UpdateUser: nobody disables or changes the role of their own account, so an admin always remains', (t) => {
  spec(t)
    .given([registered])
    .when(update({ by: U, disabled: true }))
    .thenThrows({ code: 'conflict', message: 'you cannot disable your own account or change your own role' });
  spec(t)
    .given([registered])
    .when(update({ by: U, role: 'admin' }))
    .thenThrows({ code: 'conflict' });
  spec(t)
    .given([registered])
    .when(update({ by: U, disabled: false, role: 'member' }))
    .thenNothing();
});

test('commands on an unknown user are not found', (t) => {
  spec(t)
    .when(update({ role: 'auditor' }))
    .thenThrows({ code: 'not_found', message: 'user not found' });
  spec(t).when({ type: 'ChangePassword', password_hash: 'scrypt$x', at: T1 }).thenThrows({ code: 'not_found' });
  spec(t)
    .when({ type: 'RehashPassword', previous_hash: 'a', password_hash: 'b', at: T1 })
    .thenThrows({ code: 'not_found' });
});

test('ChangePassword records the new hash, also for a disabled user', (t) => {
  spec(t)
    .given([registered, disabledEvent])
    .when({ type: 'ChangePassword', password_hash: 'scrypt$131072$8$1$s$h', at: T1 })
    .then([
      { type: 'UserPasswordChanged', data: { user_id: U, password_hash: 'scrypt$131072$8$1$s$h', changed_at: T1 } },
    ]);
});

test('RehashPassword replaces the hash it was computed from, and nothing once the password changed', (t) => {
  const rehash: UserCommand = {
    type: 'RehashPassword',
    previous_hash: 'scrypt$16384$8$1$salt$hash',
    password_hash: 'scrypt$131072$8$1$s$h',
    at: T1,
  };
  spec(t)
    .given([registered])
    .when(rehash)
    .then([
      { type: 'UserPasswordRehashed', data: { user_id: U, password_hash: 'scrypt$131072$8$1$s$h', rehashed_at: T1 } },
    ]);
  const changed: DomainEvent = {
    type: 'UserPasswordChanged',
    data: { user_id: U, password_hash: 'scrypt$131072$8$1$other$h', changed_at: T0 },
  };
  spec(t).given([registered, changed]).when(rehash).thenNothing();
});
