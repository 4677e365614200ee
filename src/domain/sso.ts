import * as t from 'io-ts';
import { Role, Uuid, boundedString, closed } from './codecs.ts';
import type { Decider } from './decider.ts';
import { withSchema } from './json-schema.ts';
import { notFound } from './errors.ts';

/** Single sign-on through OpenID Connect providers (docs/security.md#single-sign-on): what an
 *  admin configures of one, and the pure rules applied to a signed-in person's claims. */

const PROVIDER_ID_RE = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const ProviderId = withSchema(
  new t.Type<string, string, unknown>(
    'a provider id: 1-40 lower-case letters, digits and dashes',
    (u): u is string => typeof u === 'string' && PROVIDER_ID_RE.test(u),
    (u, c) => (typeof u === 'string' && PROVIDER_ID_RE.test(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: PROVIDER_ID_RE.source },
);

const DOMAIN_RE = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const Domain = withSchema(
  new t.Type<string, string, unknown>(
    'an e-mail domain such as example.com',
    (u): u is string => typeof u === 'string' && DOMAIN_RE.test(u),
    (u, c) => (typeof u === 'string' && DOMAIN_RE.test(u) ? t.success(u.toLowerCase()) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: DOMAIN_RE.source },
);

/** One value of the role claim, and what it grants: the first mapping that matches wins. */
export const RoleMapping = closed(
  t.type({ value: boundedString(1, 200), role: Role, project_ids: t.array(Uuid) }),
  'field',
  'a role mapping',
);
export type RoleMapping = t.TypeOf<typeof RoleMapping>;

/** A provider's settings other than its client secret. `claim`: where role mappings look (e.g.
 *  `groups`; a string or an array of strings); `jit`: users signing in for the first time are
 *  created (with the role of the first mapping that matches; none matching, refused). */
export const ProviderSettings = t.type({
  name: boundedString(1, 100),
  issuer: boundedString(1, 2000),
  client_id: boundedString(1, 500),
  scopes: t.array(boundedString(1, 100)),
  allowed_domains: t.array(Domain),
  jit: t.boolean,
  claim: t.union([t.null, boundedString(1, 100)]),
  mappings: t.array(RoleMapping),
});
export type ProviderSettings = t.TypeOf<typeof ProviderSettings>;

export interface Provider extends ProviderSettings {
  readonly id: string;
  readonly client_secret: string;
}

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

export const ssoEvents = {
  SsoProviderSaved: t.intersection([
    t.type({ provider_id: t.string, client_secret: t.string, saved_at: t.string }),
    ProviderSettings,
  ]),
  SsoProviderDeleted: t.type({ provider_id: t.string, deleted_at: t.string }),
} as const;

/** Why a person's claims do not let them in, in words for the log and the refusal page. */
export type Refusal =
  | { reason: 'no_email'; detail: string }
  | { reason: 'email_not_verified'; detail: string }
  | { reason: 'domain_not_allowed'; detail: string };

/** The e-mail of a person's ID token claims, when it is there, verified (unless the provider
 *  says nothing of it) and of an allowed domain. */
export const emailOf = (claims: Record<string, unknown>, allowedDomains: readonly string[]): string | Refusal => {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    return { reason: 'no_email', detail: 'the provider sent no e-mail address (ask for the `email` scope)' };
  if (claims.email_verified === false)
    return { reason: 'email_not_verified', detail: `the provider has not verified ${email}` };
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (allowedDomains.length > 0 && !allowedDomains.includes(domain))
    return { reason: 'domain_not_allowed', detail: `e-mail domain ${domain} is not allowed by this provider` };
  return email;
};

/** The grant of the first mapping whose value the role claim holds; null when none does. */
export const grantOf = (
  claims: Record<string, unknown>,
  claim: string | null,
  mappings: readonly RoleMapping[],
): { role: Role; project_ids: string[] } | null => {
  if (claim === null) return null;
  const raw = claims[claim];
  const values = Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [raw];
  const match = mappings.find((m) => values.includes(m.value));
  return match ? { role: match.role, project_ids: match.role === 'admin' ? [] : [...match.project_ids] } : null;
};

export interface SsoProviderState {
  readonly exists: boolean;
}

/** A provider's stream: saved (created or replaced whole) and deleted. */
export const ssoProviderDecider: Decider<
  SsoProviderState,
  { type: 'SaveProvider'; provider: Provider; at: string } | { type: 'DeleteProvider'; provider_id: string; at: string }
> = {
  initialState: { exists: false },
  evolve: (state, event) =>
    event.type === 'SsoProviderSaved'
      ? { exists: true }
      : event.type === 'SsoProviderDeleted'
        ? { exists: false }
        : state,
  decide(command, state) {
    if (command.type === 'SaveProvider') {
      const { id, ...settings } = command.provider;
      return [{ type: 'SsoProviderSaved', data: { provider_id: id, ...settings, saved_at: command.at } }];
    }
    if (!state.exists) throw notFound('provider');
    return [{ type: 'SsoProviderDeleted', data: { provider_id: command.provider_id, deleted_at: command.at } }];
  },
};
