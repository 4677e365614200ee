import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { ConfigError, optional, stringMin } from './config-codecs.ts';
import { describeErrors } from './domain/decode-errors.ts';
import { DEFAULT_SCOPES, ProviderId, RoleMapping, type Provider } from './domain/sso.ts';

/** WATCHLOG_OIDC_*: one single sign-on provider configured by the deployment
 *  (docs/security.md#single-sign-on); admins add more through `PUT /v1/settings/sso/:provider`. */
export const SSO_ENV = {
  WATCHLOG_OIDC_ISSUER: optional(stringMin('issuer URL', 1)),
  WATCHLOG_OIDC_CLIENT_ID: optional(stringMin('client id', 1)),
  WATCHLOG_OIDC_CLIENT_SECRET: optional(stringMin('client secret', 1)),
  WATCHLOG_OIDC_SETTINGS: optional(stringMin('JSON object', 2)),
};

type SsoEnv = { [K in keyof typeof SSO_ENV]: t.TypeOf<(typeof SSO_ENV)[K]> };

/** The rest of the provider, as the settings API takes it; every field optional. */
const EnvSettings = t.exact(
  t.partial({
    id: ProviderId,
    name: t.string,
    scopes: t.array(t.string),
    allowed_domains: t.array(t.string),
    jit: t.boolean,
    claim: t.union([t.null, t.string]),
    mappings: t.array(RoleMapping),
  }),
);

export const ssoProviderOf = (e: SsoEnv): Provider | null => {
  const { WATCHLOG_OIDC_ISSUER: issuer, WATCHLOG_OIDC_CLIENT_ID: clientId } = e;
  if (issuer === undefined && clientId === undefined) return null;
  if (issuer === undefined || clientId === undefined || e.WATCHLOG_OIDC_CLIENT_SECRET === undefined)
    throw new ConfigError([
      'WATCHLOG_OIDC_ISSUER, WATCHLOG_OIDC_CLIENT_ID and WATCHLOG_OIDC_CLIENT_SECRET: set all three, or none',
    ]);
  let json: unknown = {};
  try {
    json = JSON.parse(e.WATCHLOG_OIDC_SETTINGS ?? '{}');
  } catch {
    throw new ConfigError(['WATCHLOG_OIDC_SETTINGS: not JSON']);
  }
  const settings = EnvSettings.decode(json);
  if (isLeft(settings))
    throw new ConfigError(describeErrors(settings.left).map((d) => `WATCHLOG_OIDC_SETTINGS: ${d.path} ${d.message}`));
  const s = settings.right;
  return {
    id: s.id ?? 'sso',
    name: s.name ?? 'single sign-on',
    issuer,
    client_id: clientId,
    client_secret: e.WATCHLOG_OIDC_CLIENT_SECRET,
    scopes: s.scopes ?? DEFAULT_SCOPES,
    allowed_domains: (s.allowed_domains ?? []).map((d) => d.toLowerCase()),
    jit: s.jit ?? false,
    claim: s.claim ?? null,
    mappings: s.mappings ?? [],
  };
};
