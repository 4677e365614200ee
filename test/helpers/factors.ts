import { base32Decode, totpCode } from '../../src/domain/totp.ts';
import { type TestServer, api } from './server.ts';

/** Second factors over HTTP: a service clock in TOTP steps, and an authenticator app enrolled the
 *  way the security page enrols one. */

export const STEP_MS = 30_000;

/** A service clock the test moves, starting a second into a step (no step ends mid-request). */
export const steppingClock = () => {
  let now = Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000;
  return { now: () => new Date(now), step: (n = 1) => (now += n * STEP_MS), at: () => new Date(now) };
};

/** Enrols an authenticator app for the token's user: the secret, and the recovery codes. */
export const enrolTotp = async (server: TestServer, token: string, clock: ReturnType<typeof steppingClock>) => {
  const setup = await api(server.url, 'POST', '/v1/auth/factors/totp', { token });
  if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`);
  const secret = base32Decode(setup.body.secret)!;
  const confirmed = await api(server.url, 'POST', '/v1/auth/factors/totp/confirm', {
    token,
    body: { setup_token: setup.body.setup_token, code: totpCode(secret, clock.at()) },
  });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { secret, setup: setup.body, confirmed: confirmed.body };
};
