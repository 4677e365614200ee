import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { call } from './api.ts';

/** The browser's half of passkeys (@simplewebauthn/browser): the server's options in, the
 *  authenticator's answer out, with the server's token for that challenge. */

/** Without a challenge token, any passkey of this site signs in alone; with one, a second factor. */
export const signInWithPasskey = async (challengeToken?: string) => {
  const { options, passkey_token } = await call('POST /v1/auth/passkey/options', {
    // A dashboard sign-in: a session renewed through the refresh cookie.
    body: challengeToken === undefined ? { cookie: true } : { challenge_token: challengeToken, cookie: true },
  });
  const answer = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  return call('POST /v1/auth/passkey', {
    body: {
      passkey_token,
      response: {
        ...answer,
        response: { ...answer.response },
        clientExtensionResults: { ...answer.clientExtensionResults },
      },
    },
  });
};

export const registerPasskey = async (name: string) => {
  const { options, registration_token } = await call('POST /v1/auth/factors/passkeys/options');
  const answer = await startRegistration({
    optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  return call('POST /v1/auth/factors/passkeys', {
    body: {
      registration_token,
      name,
      response: {
        ...answer,
        response: { ...answer.response },
        clientExtensionResults: { ...answer.clientExtensionResults },
      },
    },
  });
};
