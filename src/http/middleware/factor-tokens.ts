import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Role } from '../../domain/codecs.ts';
import type { Principal } from './auth.ts';

/** The short-lived, single-purpose tokens of a sign-in with a second factor (docs/security.md).
 *  Each is a JWT signed with a key of its own, derived from the JWT secret, and says what it is
 *  for (`typ`): none is an access token (koa-jwt refuses its signature), and none stands in for
 *  another kind.
 *  - `second_factor`: the password was right; a TOTP code, a recovery code or a passkey of this
 *    user finishes the sign-in (5 minutes).
 *  - `enrolment`: the password was right, and the policy wants a factor this user lacks: it calls
 *    the enrolment operations only (`Authorization: Bearer`), and enrolling finishes the sign-in
 *    (10 minutes).
 *  - `totp_setup`: a TOTP secret offered to a user, sealed, until a first code confirms it.
 *  - `webauthn`: a WebAuthn challenge the server issued, for whom and what (5 minutes). */

export const factorKeyOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('watchlog second-factor tokens v1').digest();

/** The key TOTP secrets are sealed with in the log. */
export const totpSealKeyOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('watchlog totp secrets v1').digest();

/** `cookie`: the sign-in the token leads to is the dashboard's (a refresh cookie; `cookie` of the
 *  login), carried through the second factor, the enrolment or the passkey to `finishSignIn`. */
const ForCookie = t.partial({ cookie: t.boolean });
const SecondFactorClaims = t.intersection([t.type({ typ: t.literal('second_factor'), sub: t.string }), ForCookie]);
const EnrolmentClaims = t.intersection([t.type({ typ: t.literal('enrolment'), sub: t.string, role: Role }), ForCookie]);
const TotpSetupClaims = t.type({ typ: t.literal('totp_setup'), sub: t.string, secret: t.string });
const WebAuthnClaims = t.intersection([
  t.type({ typ: t.literal('webauthn'), purpose: t.keyof({ register: null, sign_in: null }), challenge: t.string }),
  // The user a registration, or a second factor, is for; absent: a passkey alone signs in.
  t.partial({ sub: t.string, cookie: t.boolean }),
]);

const CODECS = {
  second_factor: SecondFactorClaims,
  enrolment: EnrolmentClaims,
  totp_setup: TotpSetupClaims,
  webauthn: WebAuthnClaims,
} as const;
type Kind = keyof typeof CODECS;
export type FactorClaims<K extends Kind> = t.TypeOf<(typeof CODECS)[K]>;

export const LIFETIMES: Record<Kind, number> = { second_factor: 300, enrolment: 600, totp_setup: 600, webauthn: 300 };

export const signFactorToken = <K extends Kind>(
  kind: K,
  claims: Omit<FactorClaims<K>, 'typ'>,
  key: Buffer,
  now: Date,
) => {
  const exp = Math.floor(now.getTime() / 1000) + LIFETIMES[kind];
  return {
    token: jwt.sign({ ...claims, typ: kind, iat: Math.floor(now.getTime() / 1000), exp }, key, { algorithm: 'HS256' }),
    expires_at: new Date(exp * 1000).toISOString(),
  };
};

/** The claims of a token of `kind` signed with `key`, unexpired; null otherwise. */
export const verifyFactorToken = <K extends Kind>(
  kind: K,
  token: string,
  key: Buffer,
  now: Date,
): FactorClaims<K> | null => {
  let payload: unknown;
  try {
    payload = jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: Math.floor(now.getTime() / 1000) });
  } catch {
    return null;
  }
  const claims = (CODECS[kind] as t.Mixed).decode(payload);
  return isLeft(claims) ? null : (claims.right as FactorClaims<K>);
};

/** Whether `token` claims to be an enrolment token (unverified: only to route it to its check). */
export const looksLikeEnrolmentToken = (token: string): boolean => {
  const payload = jwt.decode(token, { json: true });
  return payload !== null && payload.typ === 'enrolment';
};

/** Someone who must enrol a factor before they are signed in: no project, no role's rights; the
 *  operations that take enrolment tokens read `enrolling`. */
export const enrolmentPrincipal = (claims: FactorClaims<'enrolment'>): Principal => ({
  userId: claims.sub,
  role: claims.role,
  scope: { all: false, projectIds: [] },
  actor: `user:${claims.sub}`,
  enrolling: { cookie: claims.cookie === true },
});
