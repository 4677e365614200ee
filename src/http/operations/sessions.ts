import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { LoginAnswer, Timestamp, text } from './answers.ts';
import { ADMINS, uuidParam } from './common.ts';
import { json, noContent, operation } from './operation.ts';

/** Sign-in sessions (docs/security.md#sessions): the dashboard's refresh, signing out, and the
 *  sessions a user sees and ends. */

export const Session = t.type({
  id: Uuid,
  kind: t.keyof({ cookie: null, token: null }),
  method: text('how the user signed in: password, oidc:<provider>, passkey'),
  device: text('browser and system, from the user agent'),
  address: text("the client's address at the last sign-in or refresh"),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp,
  current: t.boolean,
});
export const Ended = t.type({ ended: t.number });

/** The refresh cookie a dashboard session's answers set (cleared: empty, expired). */
export const refreshCookie = {
  'Set-Cookie': {
    description:
      '`watchlog_refresh`: the refresh token, HttpOnly, SameSite=Strict, Path=/v1/auth/refresh, Secure over TLS',
  },
};

const SESSIONS = 'Sessions';

export const sessionOperations = {
  refresh: operation({
    method: 'post',
    path: '/v1/auth/refresh',
    tag: SESSIONS,
    auth: 'none',
    summary: "Renew a dashboard session's token",
    description:
      'Takes the HttpOnly refresh cookie a `cookie: true` login set (sent by the browser to this path only) ' +
      'and answers a new access token, setting a new cookie: each refresh token works once. A rotated one ' +
      'shown again ends the whole session (a `system.access` event records it); an unknown, expired or ' +
      "ended session's cookie, a disabled user or one whose password changed since: 401, and the cookie is " +
      'cleared. A request from another origin (its `Origin` header) is 403.',
    responses: { 200: { ...json('a new token of the same session', LoginAnswer), headers: refreshCookie } },
    errors: [401, 403],
  }),
  logout: operation({
    method: 'post',
    path: '/v1/auth/logout',
    tag: SESSIONS,
    auth: 'jwt',
    summary: 'Sign out',
    description: "Ends the token's session (its tokens are refused from then on) and clears the refresh cookie.",
    responses: { 204: { ...noContent('signed out'), headers: refreshCookie } },
  }),
  listMine: operation({
    method: 'get',
    path: '/v1/auth/sessions',
    tag: SESSIONS,
    auth: 'jwt',
    summary: 'My sessions',
    description: 'The sessions of the caller still open, newest first; `current` marks the one asking.',
    responses: { 200: json('the sessions', t.array(Session)) },
  }),
  endOthers: operation({
    method: 'delete',
    path: '/v1/auth/sessions',
    tag: SESSIONS,
    auth: 'jwt',
    summary: 'End all my other sessions',
    description: 'Every open session of the caller but the current one.',
    responses: { 200: json('how many were ended', Ended) },
  }),
  endMine: operation({
    method: 'delete',
    path: '/v1/auth/sessions/:sessionId',
    tag: SESSIONS,
    auth: 'jwt',
    params: { sessionId: uuidParam('session') },
    summary: 'End one of my sessions',
    description: "Its tokens are refused from then on; another user's session is 404.",
    responses: { 204: noContent('ended') },
    errors: [404],
  }),
  listUsers: operation({
    method: 'get',
    path: '/v1/users/:id/sessions',
    tag: SESSIONS,
    auth: 'jwt',
    roles: ADMINS,
    params: { id: uuidParam('user') },
    summary: "A user's sessions",
    responses: { 200: json('the open sessions', t.array(Session)) },
    errors: [404],
  }),
  endUsers: operation({
    method: 'delete',
    path: '/v1/users/:id/sessions',
    tag: SESSIONS,
    auth: 'jwt',
    roles: ADMINS,
    params: { id: uuidParam('user') },
    summary: "End all of a user's sessions",
    description: 'Every open session of the user, the caller’s own included when it is theirs.',
    responses: { 200: json('how many were ended', Ended) },
    errors: [404],
  }),
};
