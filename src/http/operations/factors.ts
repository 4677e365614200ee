import * as t from 'io-ts';
import { Uuid, boundedString, closed } from '../../domain/codecs.ts';
import { SecondFactorRequirement } from '../../domain/factors.ts';
import { LoginAnswer, Timestamp, nullable, text } from './answers.ts';
import { ADMINS, uuidParam } from './common.ts';
import { json, noContent, operation } from './operation.ts';

/** Second factors (docs/security.md): signing in with one after the password, or with a passkey
 *  alone; a user's own TOTP app, recovery codes and passkeys; the deployment's policy. */

const Token = text('a short-lived single-purpose token (not an access token)');
const Code = boundedString(1, 64);

/** What a browser's WebAuthn call answers (navigator.credentials.create/get, as
 *  @simplewebauthn/browser encodes it): checked by the server's WebAuthn library. */
export const WebAuthnResponse = t.intersection(
  [
    t.type({ id: t.string, rawId: t.string, type: t.literal('public-key'), response: t.UnknownRecord }),
    t.partial({ clientExtensionResults: t.UnknownRecord, authenticatorAttachment: t.string }),
  ],
  'WebAuthnResponse',
);

export const SecondFactorBody = closed(
  t.intersection([t.type({ challenge_token: t.string }), t.partial({ totp_code: Code, recovery_code: Code })]),
  'field',
  'a second factor',
);
export const PasskeyOptionsBody = closed(
  t.partial({ challenge_token: t.string, cookie: t.boolean }),
  'field',
  'a passkey request',
);
export const PasskeySignInBody = closed(
  t.type({ passkey_token: t.string, response: WebAuthnResponse }),
  'field',
  'a passkey sign-in',
);
export const TotpConfirmBody = closed(t.type({ setup_token: t.string, code: Code }), 'field', 'a TOTP confirmation');
export const PasskeyRegistrationBody = closed(
  t.type({ registration_token: t.string, name: boundedString(1, 100), response: WebAuthnResponse }),
  'field',
  'a passkey',
);
export const PasskeyNameBody = closed(t.type({ name: boundedString(1, 100) }), 'field', 'a passkey name');
export const PolicyBody = closed(t.type({ require: SecondFactorRequirement }), 'field', 'a second-factor policy');

const Method = t.keyof({ totp: null, recovery_code: null, passkey: null });
/** The password was right; a second factor finishes the sign-in. */
export const SecondFactorNeeded = t.type({
  second_factor_required: t.literal(true),
  challenge_token: Token,
  expires_at: Timestamp,
  methods: t.array(Method),
});
/** The password was right; the policy wants a factor this user has not enrolled. */
export const EnrolmentNeeded = t.type({
  enrolment_required: t.literal(true),
  enrolment_token: Token,
  expires_at: Timestamp,
});
export const LoginStep = t.union([LoginAnswer, SecondFactorNeeded, EnrolmentNeeded], 'LoginStep');

const WebAuthnOptions = t.UnknownRecord;
export const PasskeyAnswer = t.type({
  id: Uuid,
  name: t.string,
  created_at: Timestamp,
  last_used_at: nullable(Timestamp),
});
export const FactorsAnswer = t.type({
  totp_enrolled_at: nullable(Timestamp),
  recovery_codes_left: t.number,
  recovery_codes_generated_at: nullable(Timestamp),
  passkeys: t.array(PasskeyAnswer),
  /** The policy asks this user for a second factor. */
  required: t.boolean,
});
const RecoveryCodes = nullable(t.array(t.string));
/** A factor enrolled: the recovery codes when the user had none (shown this once), and, for an
 *  enrolment token, the sign-in it finishes. */
export const EnrolledAnswer = t.type({ recovery_codes: RecoveryCodes, sign_in: nullable(LoginAnswer) });
export const TotpSetupAnswer = t.type({
  secret: text('base32, for typing into an app'),
  otpauth_uri: text('otpauth://totp/…'),
  qr_code: text('the URI as a QR code: an SVG data URL'),
  setup_token: Token,
  expires_at: Timestamp,
});
export const PolicyAnswer = t.type({ require: SecondFactorRequirement, updated_at: nullable(Timestamp) });

const SIGN_IN = 'Sign-in';
const RECENT_SIGN_IN =
  " With a user's token, its sign-in must be of the last 10 minutes (403 `reauthentication_required`: sign in again).";
const FACTORS = 'Second factors';

export const factorOperations = {
  secondFactor: operation({
    method: 'post',
    path: '/v1/auth/second-factor',
    tag: SIGN_IN,
    auth: 'none',
    summary: 'Finish a sign-in with a second factor',
    description:
      'After a login answered `second_factor_required`: its `challenge_token` and one of `totp_code` (a code ' +
      'not used before) or `recovery_code` (each works once). Wrong codes are throttled as passwords are (429).',
    body: { what: 'second factor', codec: SecondFactorBody, example: { challenge_token: '…', totp_code: '123456' } },
    responses: { 200: json('a token, as a login answers', LoginAnswer) },
    errors: [401, 429],
  }),
  passkeyOptions: operation({
    method: 'post',
    path: '/v1/auth/passkey/options',
    tag: SIGN_IN,
    auth: 'none',
    summary: 'Start a passkey sign-in',
    description:
      'Without a body field: any passkey of this site signs in alone (a discoverable credential). With the ' +
      "`challenge_token` of a login that asked for a second factor: that user's passkeys only.",
    body: { what: 'passkey request', codec: PasskeyOptionsBody, example: {} },
    responses: {
      200: json(
        'the options for navigator.credentials.get, and the token to send back',
        t.type({ options: WebAuthnOptions, passkey_token: Token, expires_at: Timestamp }),
      ),
    },
    errors: [401],
  }),
  passkeySignIn: operation({
    method: 'post',
    path: '/v1/auth/passkey',
    tag: SIGN_IN,
    auth: 'none',
    summary: 'Sign in with a passkey',
    description: "The browser's answer to the options, with their `passkey_token`. Each answer is taken once.",
    body: { what: 'passkey sign-in', codec: PasskeySignInBody },
    responses: { 200: json('a token, as a login answers', LoginAnswer) },
    errors: [401, 429],
  }),
  list: operation({
    method: 'get',
    path: '/v1/auth/factors',
    tag: FACTORS,
    auth: 'jwt',
    summary: "The caller's second factors",
    responses: { 200: json('never a secret or a code', FactorsAnswer) },
  }),
  totpSetup: operation({
    method: 'post',
    path: '/v1/auth/factors/totp',
    tag: FACTORS,
    auth: 'jwt',
    enrolment: true,
    summary: 'Offer an authenticator app a secret',
    description:
      'A new secret, its `otpauth://` URI and QR code; nothing is stored until a first code confirms it ' +
      '(`/v1/auth/factors/totp/confirm`). The secret is never shown again.' +
      RECENT_SIGN_IN,
    responses: { 200: json('the secret, until confirmed', TotpSetupAnswer) },
    errors: [403, 409],
  }),
  totpConfirm: operation({
    method: 'post',
    path: '/v1/auth/factors/totp/confirm',
    tag: FACTORS,
    auth: 'jwt',
    enrolment: true,
    summary: 'Enrol the authenticator app',
    body: { what: 'TOTP confirmation', codec: TotpConfirmBody, example: { setup_token: '…', code: '123456' } },
    responses: { 200: json('enrolled', EnrolledAnswer) },
    errors: [401, 409, 429],
  }),
  removeTotp: operation({
    method: 'delete',
    path: '/v1/auth/factors/totp',
    tag: FACTORS,
    auth: 'jwt',
    summary: 'Remove the authenticator app',
    description: `Refused (409) when the policy requires a second factor and it is the last one.${RECENT_SIGN_IN}`,
    responses: { 204: noContent('removed') },
    errors: [403, 404, 409],
  }),
  recoveryCodes: operation({
    method: 'post',
    path: '/v1/auth/factors/recovery-codes',
    tag: FACTORS,
    auth: 'jwt',
    summary: 'New recovery codes',
    description: `Ten new codes, shown this once; the old ones stop working (409 without a factor).${RECENT_SIGN_IN}`,
    responses: { 200: json('the codes', t.type({ recovery_codes: t.array(t.string) })) },
    errors: [403, 409],
  }),
  passkeyRegistrationOptions: operation({
    method: 'post',
    path: '/v1/auth/factors/passkeys/options',
    tag: FACTORS,
    auth: 'jwt',
    enrolment: true,
    summary: 'Start registering a passkey',
    description: `Takes an enrolment token too.${RECENT_SIGN_IN}`,
    responses: {
      200: json(
        'the options for navigator.credentials.create, and the token to send back',
        t.type({ options: WebAuthnOptions, registration_token: Token, expires_at: Timestamp }),
      ),
    },
    errors: [403],
  }),
  registerPasskey: operation({
    method: 'post',
    path: '/v1/auth/factors/passkeys',
    tag: FACTORS,
    auth: 'jwt',
    enrolment: true,
    summary: 'Register a passkey',
    body: { what: 'passkey', codec: PasskeyRegistrationBody },
    responses: { 201: json('registered', t.intersection([EnrolledAnswer, t.type({ passkey: PasskeyAnswer })])) },
    errors: [401, 409],
  }),
  renamePasskey: operation({
    method: 'put',
    path: '/v1/auth/factors/passkeys/:passkeyId',
    tag: FACTORS,
    auth: 'jwt',
    params: { passkeyId: uuidParam('passkey') },
    summary: 'Rename a passkey',
    body: { what: 'passkey name', codec: PasskeyNameBody, example: { name: 'work laptop' } },
    responses: { 200: json('the passkey', PasskeyAnswer) },
  }),
  removePasskey: operation({
    method: 'delete',
    path: '/v1/auth/factors/passkeys/:passkeyId',
    tag: FACTORS,
    auth: 'jwt',
    params: { passkeyId: uuidParam('passkey') },
    summary: 'Remove a passkey',
    description: `Refused (409) when the policy requires a second factor and it is the last one.${RECENT_SIGN_IN}`,
    responses: { 204: noContent('removed') },
    errors: [403, 409],
  }),
  getPolicy: operation({
    method: 'get',
    path: '/v1/settings/second-factor',
    tag: FACTORS,
    auth: 'jwt',
    roles: ADMINS,
    summary: 'The second-factor policy',
    responses: { 200: json('who must have a second factor', PolicyAnswer) },
  }),
  resetFactors: operation({
    method: 'delete',
    path: '/v1/users/:id/factors',
    tag: FACTORS,
    auth: 'jwt',
    roles: ADMINS,
    params: { id: uuidParam('user') },
    summary: "Reset a user's second factors",
    description:
      'For a user who lost their authenticator app, passkeys and recovery codes: every one of them is removed ' +
      '(each a `system.access` row naming the admin); the user signs in with the password and enrols again ' +
      'where the policy asks. 404 for an unknown user.',
    responses: { 204: noContent('reset') },
    errors: [404],
  }),
  setPolicy: operation({
    method: 'put',
    path: '/v1/settings/second-factor',
    tag: FACTORS,
    auth: 'jwt',
    roles: ADMINS,
    summary: 'Require a second factor',
    description:
      '`admins` or `everyone`: such a user who has none is sent to enrol one after the password (an enrolment ' +
      'token), before any other operation.',
    body: { what: 'second-factor policy', codec: PolicyBody, example: { require: 'admins' } },
    responses: { 200: json('the policy', PolicyAnswer) },
  }),
};
