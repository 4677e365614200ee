import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import { userDecider, userIdForEmail, type UserCommand } from '../../src/domain/user.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(userDecider);

const U = userIdForEmail('ana@example.com');
const P = '0b7c2a4e-1111-4a4a-8a8a-000000000001';
const T0 = '2026-11-23T10:00:00.000Z';

const register: UserCommand = {
  type: 'RegisterUser', user_id: U, email: 'ana@example.com', password_hash: 'scrypt$16384$8$1$salt$hash',
  role: 'member', project_ids: [P], at: T0,
};
const registered: DomainEvent = {
  type: 'UserRegistered',
  data: { user_id: U, email: 'ana@example.com', password_hash: 'scrypt$16384$8$1$salt$hash', role: 'member', project_ids: [P], registered_at: T0 },
};

test('RegisterUser on a free e-mail registers the user with the hash, role and projects', (t) => {
  spec(t).given([]).when(register).then([registered]);
});

test('RegisterUser again for the same e-mail is a conflict, whatever the role or password', (t) => {
  spec(t).given([registered])
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
