import type { Context } from 'koa';
import { provisionUser, updateUser } from '../../commands/users.ts';
import { DomainError } from '../../domain/errors.ts';
import { emailOf, grantOf, type Provider } from '../../domain/sso.ts';
import type { UserView } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import { clientOf, finishSignIn } from '../routes/sign-in.ts';
import { openidClient } from './clients.ts';
import { STATE_TTL_MS, setState, takeState } from './state.ts';

/** The redirect flow of a single sign-on (docs/security.md#single-sign-on). */

/** Where the provider sends the browser back: registered at the provider as it is. */
export const redirectUri = (deps: RouteDeps, ctx: Context, provider: Provider) =>
  `${deps.publicUrl ?? `${ctx.protocol}://${ctx.host}`}/v1/auth/oidc/${provider.id}/callback`;

/** A dashboard path, never another site (`//host`, `/\host`). */
const safeNext = (next: string | undefined) => (next !== undefined && /^\/(?![/\\])/.test(next) ? next : '/projects');

export const loginPageWith = (message: string) => `/login?sso_error=${encodeURIComponent(message.slice(0, 300))}`;

/** The URL of the provider's authorization endpoint for a new sign-in, its checks kept in the
 *  state cookie. */
export const startSignOn = async (deps: RouteDeps, ctx: Context, provider: Provider, next: string | undefined) => {
  const config = await deps.ssoClients.config(provider);
  const client = await openidClient();
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  setState(ctx, deps.ssoStateKey, {
    provider: provider.id,
    state,
    nonce,
    verifier,
    next: safeNext(next),
    expires: Date.now() + STATE_TTL_MS,
  });
  return client
    .buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(deps, ctx, provider),
      scope: provider.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    .toString();
};

/** A refusal: its reason goes to the log, the audit trail and the login page. */
export class SignOnRefused extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly email?: string,
  ) {
    super(message);
  }
}

/** The user the provider's claims name: created just in time when the provider allows it, their
 *  role and projects those of the first mapping that matches (changed on each sign-in when the
 *  mapping grants something else). */
const userFor = async (deps: RouteDeps, ctx: Context, provider: Provider, claims: Record<string, unknown>) => {
  const email = emailOf(claims, provider.allowed_domains);
  if (typeof email !== 'string') throw new SignOnRefused(email.reason, email.detail, String(claims.email ?? ''));
  const grant = grantOf(claims, provider.claim, provider.mappings);
  const command = { actor: `sso:${provider.id}`, correlationId: ctx.state.correlationId as string, now: deps.now };
  const known = await deps.readModels.access.userByEmail(email);
  if (!known) {
    if (!provider.jit)
      throw new SignOnRefused('no_account', `no watchlog account for ${email} (just-in-time creation is off)`, email);
    if (!grant)
      throw new SignOnRefused('no_mapping', `no role mapping of this provider matches ${email}'s claims`, email);
    try {
      const { position } = await provisionUser(deps.commands, { email, ...grant }, command);
      await deps.caughtUp(['access'], position);
    } catch (error) {
      if (error instanceof DomainError) throw new SignOnRefused('provisioning_failed', error.message, email);
      throw error;
    }
  } else if (known.disabled) {
    throw new SignOnRefused('disabled', `the watchlog account of ${email} is disabled`, email);
  } else if (
    grant &&
    (grant.role !== known.role || [...grant.project_ids].sort().join() !== [...known.project_ids].sort().join())
  ) {
    const { position } = await updateUser(deps.commands, known.id, grant, null, command);
    await deps.caughtUp(['access'], position);
    deps.users.invalidate(known.id);
  }
  const { password_hash: _, ...user } = (await deps.readModels.access.userByEmail(email))!;
  return user satisfies UserView;
};

/** The provider's redirect back: the state cookie, the code exchange and the ID token's checks
 *  (openid-client: signature, iss, aud, nonce, exp), then the account; signed in, the browser
 *  lands on `next` with a dashboard session. */
export const finishSignOn = async (deps: RouteDeps, ctx: Context, provider: Provider): Promise<string> => {
  const pending = takeState(ctx, deps.ssoStateKey, Date.now());
  if (!pending || pending.provider !== provider.id)
    throw new SignOnRefused(
      'no_state',
      'no sign-in in progress in this browser (expired, or its answer was used already)',
    );
  const config = await deps.ssoClients.config(provider);
  const client = await openidClient();
  const current = new URL(ctx.originalUrl, redirectUri(deps, ctx, provider));
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    claims = (tokens.claims() ?? {}) as Record<string, unknown>;
  } catch (error) {
    // openid-client says "invalid response encountered" and puts what was wrong (the state, the
    // ID token's iss, aud, nonce, signature or expiry) in the cause.
    const e = error as { message?: string; code?: string; error?: string; error_description?: string; cause?: unknown };
    const cause = (e.cause as { message?: unknown } | undefined)?.message;
    const detail = e.error
      ? `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`
      : `${e.message}${typeof cause === 'string' ? `: ${cause}` : ''}`;
    throw new SignOnRefused(e.code ?? 'refused', `the provider's answer was refused: ${detail ?? 'unknown error'}`);
  }
  const user = await userFor(deps, ctx, provider, claims);
  await finishSignIn(deps, ctx, user, `oidc:${provider.id}`, { cookie: true });
  return pending.next;
};

/** Records a refused sign-on (log line and `system.access` event), and the login page's URL
 *  saying why. */
export const refuseSignOn = async (deps: RouteDeps, ctx: Context, providerId: string, refusal: SignOnRefused) => {
  const { address, userAgent } = clientOf(ctx);
  deps.logger.warn({ provider: providerId, reason: refusal.reason, detail: refusal.message }, 'single sign-on refused');
  await deps.recordLogin({
    email: refusal.email ?? `sso:${providerId}`,
    ok: false,
    address,
    ...(userAgent ? { userAgent } : {}),
    reason: `${refusal.reason}: ${refusal.message}`.slice(0, 300),
    method: `oidc:${providerId}`,
    path: `/v1/auth/oidc/${providerId}/callback`,
    requestId: ctx.state.correlationId as string,
    at: deps.now(),
  });
  return loginPageWith(refusal.message);
};
