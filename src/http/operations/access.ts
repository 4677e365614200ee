import * as t from 'io-ts';
import { ApiKeyRestrictions } from '../../domain/api-keys.ts';
import { Email, Role, Uuid, boundedString, closed } from '../../domain/codecs.ts';
import { ApiKey, IssuedApiKey, Project, User } from './answers.ts';
import { LoginStep } from './factors.ts';
import { ADMINS, AT, PROJECT, WRITERS, uuidParam } from './common.ts';
import { json, noContent, operation } from './operation.ts';
import { refreshCookie } from './sessions.ts';

/** Login, users, projects and API keys. Admins create projects and users; admins and members
 *  manage the keys of projects they see; auditors only read. Bodies refuse unknown fields: a
 *  misspelt field is a 400 naming it. */

/** `cookie: true` (the dashboard): a short-lived token renewed through the refresh cookie; absent
 *  or false, SPEC's token for scripts. */
export const LoginBody = closed(
  t.intersection([t.type({ email: t.string, password: t.string }), t.partial({ cookie: t.boolean })]),
  'field',
  'a login',
);
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

/** One API key of a project the caller sees, changed by the project's writers. */
const aKey = {
  path: '/v1/projects/:id/api-keys/:keyId',
  tag: 'Projects',
  auth: 'jwt',
  resource: 'project',
  params: { keyId: uuidParam('API key') },
  roles: WRITERS,
} as const;

export const accessOperations = {
  login: operation({
    method: 'post',
    path: '/v1/auth/login',
    tag: 'Accounts',
    auth: 'none',
    summary: 'Log in',
    description:
      'The e-mail is case-insensitive. A wrong e-mail or password and a disabled account all answer ' +
      '401; so does an account made by single sign-on, which has no password (the answer says so). ' +
      'Failed logins are throttled per account and per client address: a refused attempt is 429 ' +
      'with `Retry-After`, whatever the password. A user with no second factor, where none is required, gets ' +
      'the token at once. Every sign-in starts a session (`sid` in the token). With `cookie: true` (the ' +
      'dashboard) the token lasts `WATCHLOG_ACCESS_TOKEN_TTL_SECONDS`, the answer adds `session_id`, and a ' +
      'refresh cookie renews it (`POST /v1/auth/refresh`); the flag is carried through a second factor.',
    body: {
      what: 'login',
      codec: LoginBody,
      example: { email: 'admin@example.com', password: 'change-me-please' },
    },
    responses: {
      200: {
        ...json(
          'a token; or, for a user with a second factor, `second_factor_required` and a challenge token for ' +
            '`POST /v1/auth/second-factor` or a passkey; or, for one the policy wants to enrol, an enrolment token',
          LoginStep,
        ),
        headers: refreshCookie,
      },
    },
    errors: [401, 429],
  }),
  me: operation({
    method: 'get',
    path: '/v1/auth/me',
    tag: 'Accounts',
    auth: 'jwt',
    summary: 'The caller',
    responses: { 200: json('the caller, as users are listed', User) },
  }),
  createUser: operation({
    method: 'post',
    path: '/v1/users',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    summary: 'Create a user',
    description:
      'Admins get `project_ids: []` (they see every project); an unknown project is 400 ' +
      '(`project_ids.N`); a taken e-mail is 409.',
    body: {
      what: 'user',
      codec: NewUserBody,
      example: { email: 'ada@example.com', password: 'a long password', role: 'member', project_ids: [PROJECT] },
    },
    responses: { 201: json('the user', User) },
    errors: [409],
  }),
  listUsers: operation({
    method: 'get',
    path: '/v1/users',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    summary: 'List users',
    responses: { 200: json('every user (never a password hash)', t.array(User)) },
  }),
  updateUser: operation({
    method: 'put',
    path: '/v1/users/:id',
    tag: 'Accounts',
    auth: 'jwt',
    params: { id: uuidParam('user') },
    roles: ADMINS,
    summary: 'Change a user',
    description: "A new role or new projects end the user's tokens; nobody changes their own role (409).",
    body: {
      what: 'user update',
      codec: UserUpdateBody,
      example: { role: 'auditor' },
    },
    responses: { 200: json('the user', User) },
    errors: [409],
  }),
  disableUser: operation({
    method: 'delete',
    path: '/v1/users/:id',
    tag: 'Accounts',
    auth: 'jwt',
    params: { id: uuidParam('user') },
    roles: ADMINS,
    summary: 'Disable a user',
    description:
      'The user is kept, disabled: their tokens are refused and they cannot log in. Nobody disables themselves (409).',
    responses: { 204: noContent('disabled') },
    errors: [409],
  }),
  setPassword: operation({
    method: 'post',
    path: '/v1/users/:id/password',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    orSelf: true,
    params: { id: uuidParam('user') },
    summary: 'Set a password',
    description:
      "Admins set anyone's; everyone sets their own with `current_password` (missing: 400; wrong: 403, " +
      'counted by the login throttle, so repeated guesses are 429). Every older token of the user is ' +
      'refused from then on.',
    body: {
      what: 'password change',
      codec: PasswordBody,
      example: { password: 'a brand new password', current_password: 'the old one' },
    },
    responses: { 204: noContent('changed') },
    errors: [403, 429],
  }),
  createProject: operation({
    method: 'post',
    path: '/v1/projects',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    summary: 'Create a project',
    body: {
      what: 'project',
      codec: NameBody,
      example: { name: 'shop' },
    },
    responses: { 201: json('the project', Project, { id: PROJECT, name: 'shop', created_at: AT }) },
  }),
  listProjects: operation({
    method: 'get',
    path: '/v1/projects',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    summary: 'List projects',
    responses: { 200: json('the projects the caller may see', t.array(Project)) },
  }),
  getProject: operation({
    method: 'get',
    path: '/v1/projects/:id',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    summary: 'A project',
    responses: { 200: json('the project', Project) },
  }),
  issueKey: operation({
    method: 'post',
    path: '/v1/projects/:id/api-keys',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    roles: WRITERS,
    summary: 'Issue an API key',
    description:
      'The key is in this answer only; watchlog keeps its SHA-256. `allowed_origins` restricts the ' +
      'browser origins it may be used from (none: any); `rate_limit` its events per second (null: ' +
      '`WATCHLOG_INGEST_RATE_LIMIT`).',
    body: {
      what: 'API key',
      codec: NewKeyBody,
      example: { name: 'storefront', allowed_origins: ['https://shop.example.com'], rate_limit: 200 },
    },
    responses: { 201: json('the key, shown once', IssuedApiKey) },
  }),
  listKeys: operation({
    method: 'get',
    path: '/v1/projects/:id/api-keys',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    summary: 'List API keys',
    responses: { 200: json("the project's keys (never the key itself)", t.array(ApiKey)) },
  }),
  restrictKey: operation({
    ...aKey,
    method: 'put',
    summary: 'Restrict an API key',
    description: 'Applied to ingest within a second; a revoked key is 409.',
    body: {
      what: 'API key update',
      codec: KeyUpdateBody,
      example: { rate_limit: null },
    },
    responses: { 200: json('the key', ApiKey) },
    errors: [409],
  }),
  revokeKey: operation({
    ...aKey,
    method: 'delete',
    summary: 'Revoke an API key',
    description: 'Ingest with the key is 401 from then on; a revoked key is 409.',
    responses: { 204: noContent('revoked') },
    errors: [409],
  }),
};
