import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { DomainError, notFound } from '../domain/errors.ts';
import { factorsDecider } from '../domain/factors.ts';
import { factorsStream } from '../domain/streams.ts';
import { type CommandContext, type CommandDeps, handle } from './handle.ts';
import { loadFactors, type NewPasskey } from './factors.ts';

/** Passkeys (WebAuthn) through @simplewebauthn/server: the ceremonies' options and the checks of
 *  what the browser answers. User verification is required every time, so a passkey alone is two
 *  factors (the device, and the PIN or biometric that unlocks it). Attestation is not asked: any
 *  authenticator is taken; what matters is that the same key signs in later. */

/** The relying party: who the passkeys are for (WATCHLOG_WEBAUTHN_RP_ID, _RP_NAME, _ORIGINS). */
export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origins: readonly string[];
}

/** Loaded on first use: the library and what it imports are about 8 MB of heap (24 MB of RSS in
 *  a bare process), which a server whose users have no passkey should not carry. */
const webauthn = () => import('@simplewebauthn/server');

const refused = (why: string) => new DomainError('unauthorized', `passkey refused: ${why}`);

const transportsOf = (list: readonly string[]) => list as AuthenticatorTransportFuture[];

/** A discoverable credential (so it can sign in with no e-mail typed), none of `existing` again. */
export const registrationOptions = async (
  rp: RelyingParty,
  user: { readonly id: string; readonly email: string },
  existing: ReadonlyArray<{ credential_id: string; transports: string[] }>,
) =>
  (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: transportsOf(c.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });

/** `allow`: the credentials of the user a second factor is for; absent, any passkey of this site. */
export const signInOptions = async (
  rp: RelyingParty,
  allow?: ReadonlyArray<{ credential_id: string; transports: string[] }>,
) =>
  (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'required',
    ...(allow
      ? { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: transportsOf(c.transports) })) }
      : {}),
  });

/** The new credential, once its response answers `challenge` from one of our origins. */
export const verifyRegistration = async (
  rp: RelyingParty,
  response: unknown,
  challenge: string,
): Promise<Omit<NewPasskey, 'name'>> => {
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch (error) {
    throw refused((error as Error).message);
  }
  if (!verified.verified) throw refused('the registration does not verify');
  const { credential } = verified.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
  };
};

/** Checks an assertion by the user's passkey `passkeyId` against `challenge`, and takes the
 *  challenge (a replayed assertion is refused) with the passkey's new counter. */
export const usePasskey = async (
  deps: CommandDeps,
  rp: RelyingParty,
  userId: string,
  passkeyId: string,
  response: unknown,
  challenge: string,
  ctx: CommandContext,
) => {
  const loaded = await loadFactors(deps, userId);
  const passkey = loaded.state.passkeys.find((p) => p.id === passkeyId);
  if (!passkey) throw notFound('passkey');
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await (await webauthn()).verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: passkey.counter,
        transports: transportsOf(passkey.transports),
      },
    });
  } catch (error) {
    throw refused((error as Error).message);
  }
  if (!verified.verified) throw refused('the signature does not verify');
  return handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    {
      type: 'UsePasskey',
      user_id: userId,
      passkey_id: passkeyId,
      counter: verified.authenticationInfo.newCounter,
      challenge,
      at: ctx.now().toISOString(),
    },
    ctx,
    loaded,
  );
};
