import * as t from 'io-ts';
import { boundedString, closed } from '../../domain/codecs.ts';
import { ProviderId, ProviderSettings } from '../../domain/sso.ts';
import { text } from './answers.ts';
import { ADMINS } from './common.ts';
import { json, noContent, operation, type PathParam } from './operation.ts';

/** Single sign-on through OpenID Connect (docs/security.md#single-sign-on): the login page's
 *  providers, the redirect flow, and the providers admins configure. */

const providerParam: PathParam = { codec: ProviderId, what: 'provider' };
const TAG = 'Single sign-on';

export const ProviderListItem = t.type({ id: text('provider id'), name: text('shown on the login page') });
export const ProviderAnswer = t.intersection([
  t.type({ id: text('provider id'), source: t.keyof({ environment: null, settings: null }) }),
  ProviderSettings,
]);
/** Settings and the client secret, which may be left out when a provider is changed (it keeps
 *  its own). */
export const ProviderBody = closed(
  t.intersection([ProviderSettings, t.partial({ client_secret: boundedString(1, 2000) })]),
  'field',
  'a provider',
);
const StartQuery = closed(t.partial({ next: boundedString(1, 2000) }), 'parameter', 'a sign-in');
const redirect = (description: string, cookies: string) => ({
  description,
  headers: {
    Location: { description: 'where the browser goes', required: true },
    'Set-Cookie': { description: cookies },
  },
});

export const ssoOperations = {
  providers: operation({
    method: 'get',
    path: '/v1/auth/oidc/providers',
    tag: TAG,
    auth: 'none',
    summary: 'Single sign-on providers',
    description: 'What the login page offers: each provider configured, by id and name.',
    responses: { 200: json('the providers', t.array(ProviderListItem)) },
  }),
  start: operation({
    method: 'get',
    path: '/v1/auth/oidc/:provider/start',
    tag: TAG,
    auth: 'none',
    params: { provider: providerParam },
    query: StartQuery,
    summary: 'Sign in through a provider',
    description:
      "Redirects the browser to the provider's authorization endpoint (authorization code flow, PKCE S256, " +
      '`state` and `nonce`), keeping them in a signed, HttpOnly cookie for 10 minutes. `next`: the dashboard ' +
      'path to land on. An unreachable provider redirects to `/login?sso_error=…`.',
    responses: { 302: redirect('to the provider', '`watchlog_oidc`: the sign-in in progress, signed, HttpOnly') },
    errors: [404],
  }),
  callback: operation({
    method: 'get',
    path: '/v1/auth/oidc/:provider/callback',
    tag: TAG,
    auth: 'none',
    params: { provider: providerParam },
    ignoresQuery: true,
    summary: "The provider's redirect back",
    description:
      'Exchanges the code and checks the ID token (signature, `iss`, `aud`, `nonce`, expiry) and the `state`; ' +
      'then the e-mail domain, just-in-time creation and the role mapping. Signed in: a dashboard session ' +
      '(refresh cookie) and a redirect to `next`. Refused: a redirect to `/login?sso_error=…`, the reason ' +
      'logged and recorded as a `system.access` event.',
    responses: {
      302: redirect(
        'to the dashboard, signed in, or to the login page with the reason',
        '`watchlog_oidc` cleared; signed in, `watchlog_refresh` (as `POST /v1/auth/login` with `cookie: true`)',
      ),
    },
    errors: [404],
  }),
  list: operation({
    method: 'get',
    path: '/v1/settings/sso',
    tag: TAG,
    auth: 'jwt',
    roles: ADMINS,
    summary: 'Configured providers',
    description: 'Those of the settings API and the one of `WATCHLOG_OIDC_*` (`source`); never a client secret.',
    responses: { 200: json('the providers', t.array(ProviderAnswer)) },
  }),
  save: operation({
    method: 'put',
    path: '/v1/settings/sso/:provider',
    tag: TAG,
    auth: 'jwt',
    roles: ADMINS,
    params: { provider: providerParam },
    summary: 'Create or replace a provider',
    description:
      '`client_secret` is required for a new provider and kept when left out of a change. The id of the ' +
      "environment's provider is taken (409). The redirect URI to register at the provider: " +
      '`<WATCHLOG_PUBLIC_URL or this origin>/v1/auth/oidc/<id>/callback`.',
    body: {
      what: 'provider',
      codec: ProviderBody,
      example: {
        name: 'Corp SSO',
        issuer: 'https://login.example.com/realms/corp',
        client_id: 'watchlog',
        client_secret: 'from the provider',
        scopes: ['openid', 'email', 'profile'],
        allowed_domains: ['example.com'],
        jit: true,
        claim: 'groups',
        mappings: [{ value: 'watchlog-admins', role: 'admin', project_ids: [] }],
      },
    },
    responses: { 200: json('the provider', ProviderAnswer) },
    errors: [409],
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/settings/sso/:provider',
    tag: TAG,
    auth: 'jwt',
    roles: ADMINS,
    params: { provider: providerParam },
    summary: 'Remove a provider',
    responses: { 204: noContent('removed') },
    errors: [404],
  }),
};
