import type { Context } from 'koa';
import {
  addPasskey,
  enrolTotp,
  generateRecoveryCodes,
  newTotpSecret,
  removePasskey,
  removeTotp,
  renamePasskey,
  resetFactors,
  sealTotpSecret,
  setSecondFactorPolicy,
  unsealTotpSecret,
  loadFactors,
  loadPolicy,
  useRecoveryCode,
  useTotp,
} from '../../commands/factors.ts';
import type { CommandContext } from '../../commands/handle.ts';
import { registrationOptions, signInOptions, usePasskey, verifyRegistration } from '../../commands/passkeys.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import { secondFactorRequired } from '../../domain/factors.ts';
import { otpauthUri } from '../../domain/totp.ts';
import type { UserView } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import type { Principal } from '../middleware/auth.ts';
import { signFactorToken, verifyFactorToken } from '../middleware/factor-tokens.ts';
import { HttpError } from '../middleware/errors.ts';
import type { factorOperations } from '../operations/factors.ts';
import { type Handlers, created, noBody, ok } from '../operations/operation.ts';
import { clientAddress, tooManyAttempts } from './access.ts';
import { requireRecentSignIn } from './recent-sign-in.ts';
import { type SignInMethod, finishSignIn } from './sign-in.ts';

const ISSUER = 'watchlog';

const refused = (message: string) => new HttpError(401, 'unauthorized', message);

/** The user a token names, if they may still sign in. */
const activeUser = async (deps: RouteDeps, id: string): Promise<UserView> => {
  const user = await deps.readModels.access.userById(id);
  if (!user || user.disabled) throw refused('this account cannot sign in: sign in again');
  return user;
};

/** A second factor's attempt, throttled as a password's: per account (under a key of its own, so
 *  that a right password never clears a wrong code's count) and per client address. Failures and
 *  the sign-in it finishes (finishSignIn) are login rows of the audit trail. */
const checkFactor = async <T>(
  deps: RouteDeps,
  ctx: Context & { state: { correlationId: string } },
  user: UserView,
  factor: 'totp' | 'recovery_code' | 'passkey',
  check: (command: CommandContext) => Promise<T>,
): Promise<T> => {
  const attempt = { email: `second-factor:${user.email}`, address: clientAddress(ctx) };
  const at = deps.now();
  const seen = {
    email: user.email,
    address: attempt.address,
    requestId: ctx.state.correlationId,
    userId: user.id,
    factor,
    ...(ctx.get('user-agent') ? { userAgent: ctx.get('user-agent') } : {}),
  } as const;
  const retryAfterMs = await deps.loginThrottle.retryAfterMs(attempt);
  if (retryAfterMs > 0) {
    await deps.recordLogin({ ...seen, ok: false, at, reason: 'throttled' });
    throw tooManyAttempts(retryAfterMs);
  }
  const command = { actor: `user:${user.id}`, correlationId: ctx.state.correlationId, now: deps.now };
  let result: T;
  try {
    result = await check(command);
  } catch (error) {
    if (!(error instanceof DomainError && (error.code === 'unauthorized' || error.code === 'not_found'))) throw error;
    await deps.loginThrottle.failed(attempt);
    await deps.recordLogin({ ...seen, ok: false, at, reason: 'wrong_factor' });
    throw refused(error.code === 'not_found' ? 'unknown passkey' : error.message);
  }
  // The sign-in it finishes is recorded by finishSignIn.
  await deps.loginThrottle.succeeded(attempt);
  return result;
};

/** Whether the policy asks this user for a factor (then the last one is not removed), as its
 *  stream has it now. */
const required = async (deps: RouteDeps, principal: Principal) =>
  secondFactorRequired((await loadPolicy(deps.commands)).state.require, principal.role);

const userOf = async (deps: RouteDeps, principal: Principal) => {
  const user = await deps.readModels.access.userById(principal.userId);
  if (!user) throw refused("this token's user no longer exists");
  return user;
};

/** A factor enrolled by someone the policy sent to enrol: the sign-in it was waiting for. */
const signInIfEnrolling = async (deps: RouteDeps, ctx: Context, principal: Principal, how: SignInMethod) => {
  if (principal.enrolling === undefined) return null;
  const user = await activeUser(deps, principal.userId);
  return finishSignIn(deps, ctx, user, how, { cookie: principal.enrolling.cookie });
};

const passkeyAnswer = async (deps: RouteDeps, userId: string, passkeyId: string) => {
  const found = (await deps.readModels.factors.factorsOf(userId)).passkeys.find((p) => p.id === passkeyId);
  if (!found) throw notFound('passkey');
  return found;
};

/** The login's answer after a right password (src/http/routes/access.ts): a second-factor
 *  challenge for a user who has a factor, an enrolment token for one the policy wants to enrol,
 *  null when the password alone signs in. Both are read from their streams, not from the factors
 *  read model: a read model behind the log (after a restart, during a rebuild, under load) must
 *  never let a password alone sign in a user who has a factor. */
export const afterPassword = async (deps: RouteDeps, user: UserView, cookie: boolean) => {
  const [{ state: factors }, { state: policy }] = await Promise.all([
    loadFactors(deps.commands, user.id),
    loadPolicy(deps.commands),
  ]);
  const now = deps.now();
  if (factors.totp !== null || factors.passkeys.length > 0) {
    const claims = { sub: user.id, ...(cookie ? { cookie } : {}) };
    const { token, expires_at } = signFactorToken('second_factor', claims, deps.factorKey, now);
    const methods = [
      ...(factors.totp !== null ? (['totp'] as const) : []),
      ...(factors.recoveryCodes.length > 0 ? (['recovery_code'] as const) : []),
      ...(factors.passkeys.length > 0 ? (['passkey'] as const) : []),
    ];
    return {
      pending: 'second_factor' as const,
      answer: { second_factor_required: true as const, challenge_token: token, expires_at, methods },
    };
  }
  if (secondFactorRequired(policy.require, user.role)) {
    const claims = { sub: user.id, role: user.role, ...(cookie ? { cookie } : {}) };
    const { token, expires_at } = signFactorToken('enrolment', claims, deps.factorKey, now);
    return {
      pending: 'enrolment' as const,
      answer: { enrolment_required: true as const, enrolment_token: token, expires_at },
    };
  }
  return null;
};

export const factorHandlers: Handlers<typeof factorOperations, RouteDeps> = {
  secondFactor: async ({ body, ctx }, deps) => {
    const claims = verifyFactorToken('second_factor', body.challenge_token, deps.factorKey, deps.now());
    if (!claims) throw refused('challenge expired or invalid: sign in again');
    const given = (body.totp_code === undefined ? 0 : 1) + (body.recovery_code === undefined ? 0 : 1);
    if (given !== 1)
      throw new HttpError(400, 'validation_error', 'invalid second factor: totp_code', [
        { path: 'totp_code', message: 'send exactly one of totp_code and recovery_code' },
      ]);
    const user = await activeUser(deps, claims.sub);
    const how = body.totp_code !== undefined ? 'totp' : 'recovery_code';
    const used = await checkFactor(deps, ctx, user, how, (command) =>
      body.totp_code !== undefined
        ? useTotp(deps.factorCommands, user.id, body.totp_code, command)
        : useRecoveryCode(deps.factorCommands, user.id, body.recovery_code!, command),
    );
    // A recovery code spent shows at once in the codes left (a TOTP step is in no read model).
    if (how === 'recovery_code') await deps.caughtUp(['factors'], used.position);
    return ok(await finishSignIn(deps, ctx, user, how, { cookie: claims.cookie === true }));
  },

  passkeyOptions: async ({ body }, deps) => {
    let sub: string | undefined;
    let allow: Awaited<ReturnType<typeof deps.readModels.factors.credentialsOf>> | undefined;
    let cookie = body.cookie === true;
    if (body.challenge_token !== undefined) {
      const claims = verifyFactorToken('second_factor', body.challenge_token, deps.factorKey, deps.now());
      if (!claims) throw refused('challenge expired or invalid: sign in again');
      sub = claims.sub;
      allow = await deps.readModels.factors.credentialsOf(sub);
      cookie ||= claims.cookie === true;
    }
    const options = await signInOptions(deps.relyingParty, allow);
    const claims = {
      purpose: 'sign_in' as const,
      challenge: options.challenge,
      ...(sub ? { sub } : {}),
      ...(cookie ? { cookie } : {}),
    };
    const { token, expires_at } = signFactorToken('webauthn', claims, deps.factorKey, deps.now());
    return ok({ options: { ...options }, passkey_token: token, expires_at });
  },

  passkeySignIn: async ({ body, ctx }, deps) => {
    const claims = verifyFactorToken('webauthn', body.passkey_token, deps.factorKey, deps.now());
    if (claims?.purpose !== 'sign_in') throw refused('passkey challenge expired or invalid: start again');
    const credential = await deps.readModels.factors.passkeyByCredentialId(body.response.id);
    if (!credential || (claims.sub !== undefined && claims.sub !== credential.user_id))
      throw refused('this passkey is not registered here');
    const user = await activeUser(deps, credential.user_id);
    await checkFactor(deps, ctx, user, 'passkey', (command) =>
      usePasskey(
        deps.commands,
        deps.relyingParty,
        user.id,
        credential.passkey_id,
        body.response,
        claims.challenge,
        command,
      ),
    );
    return ok(await finishSignIn(deps, ctx, user, 'passkey', { cookie: claims.cookie === true }));
  },

  list: async ({ principal }, deps) => {
    const { user_id: _, ...factors } = await deps.readModels.factors.factorsOf(principal.userId);
    return ok({ ...factors, required: await required(deps, principal) });
  },

  totpSetup: async ({ principal }, deps) => {
    await requireRecentSignIn(deps, principal);
    const user = await userOf(deps, principal);
    if ((await deps.readModels.factors.factorsOf(user.id)).totp_enrolled_at !== null)
      throw new HttpError(409, 'conflict', 'an authenticator app is enrolled already: remove it first');
    const secret = newTotpSecret();
    const uri = otpauthUri(secret, ISSUER, user.email);
    // Loaded on first use: only an enrolment draws a QR code.
    const { default: QRCode } = await import('qrcode');
    const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const sealed = sealTotpSecret(deps.factorCommands.factorKey, user.id, secret);
    const { token, expires_at } = signFactorToken(
      'totp_setup',
      { sub: user.id, secret: sealed },
      deps.factorKey,
      deps.now(),
    );
    return ok({
      secret,
      otpauth_uri: uri,
      qr_code: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
      setup_token: token,
      expires_at,
    });
  },

  totpConfirm: async ({ body, principal, ctx }, deps) => {
    const claims = verifyFactorToken('totp_setup', body.setup_token, deps.factorKey, deps.now());
    const secret =
      claims && claims.sub === principal.userId
        ? unsealTotpSecret([deps.factorCommands.factorKey], principal.userId, claims.secret)
        : null;
    if (secret === null) throw refused('setup expired or invalid: start again');
    const user = await userOf(deps, principal);
    const { recoveryCodes, position } = await checkFactor(deps, ctx, user, 'totp', (command) =>
      enrolTotp(deps.factorCommands, user.id, secret, body.code, command),
    );
    await deps.caughtUp(['factors'], position);
    return ok({ recovery_codes: recoveryCodes, sign_in: await signInIfEnrolling(deps, ctx, principal, 'totp') });
  },

  removeTotp: async ({ principal, command }, deps) => {
    await requireRecentSignIn(deps, principal);
    const { position } = await removeTotp(deps.commands, principal.userId, await required(deps, principal), command!);
    await deps.caughtUp(['factors'], position);
    return noBody(204);
  },

  recoveryCodes: async ({ principal, command }, deps) => {
    await requireRecentSignIn(deps, principal);
    const factors = await deps.readModels.factors.factorsOf(principal.userId);
    if (factors.totp_enrolled_at === null && factors.passkeys.length === 0)
      throw new HttpError(409, 'conflict', 'recovery codes back up a second factor: enrol one first');
    const { codes, position } = await generateRecoveryCodes(deps.commands, principal.userId, command!);
    await deps.caughtUp(['factors'], position);
    return ok({ recovery_codes: codes });
  },

  passkeyRegistrationOptions: async ({ principal }, deps) => {
    await requireRecentSignIn(deps, principal);
    const user = await userOf(deps, principal);
    const existing = await deps.readModels.factors.credentialsOf(user.id);
    const options = await registrationOptions(deps.relyingParty, user, existing);
    const { token, expires_at } = signFactorToken(
      'webauthn',
      { purpose: 'register', challenge: options.challenge, sub: user.id },
      deps.factorKey,
      deps.now(),
    );
    return ok({ options: { ...options }, registration_token: token, expires_at });
  },

  registerPasskey: async ({ body, principal, command, ctx }, deps) => {
    const claims = verifyFactorToken('webauthn', body.registration_token, deps.factorKey, deps.now());
    if (claims?.purpose !== 'register' || claims.sub !== principal.userId)
      throw refused('registration expired or invalid: start again');
    let verified: Awaited<ReturnType<typeof verifyRegistration>>;
    try {
      verified = await verifyRegistration(deps.relyingParty, body.response, claims.challenge);
    } catch (error) {
      if (error instanceof DomainError) throw refused(error.message);
      throw error;
    }
    const added = await addPasskey(deps.commands, principal.userId, { ...verified, name: body.name }, command!);
    await deps.caughtUp(['factors'], added.position);
    return created({
      passkey: await passkeyAnswer(deps, principal.userId, added.passkeyId),
      recovery_codes: added.recoveryCodes,
      sign_in: await signInIfEnrolling(deps, ctx, principal, 'passkey'),
    });
  },

  renamePasskey: async ({ params, body, principal, command }, deps) => {
    const { position } = await renamePasskey(deps.commands, principal.userId, params.passkeyId, body.name, command!);
    await deps.caughtUp(['factors'], position);
    return ok(await passkeyAnswer(deps, principal.userId, params.passkeyId));
  },

  removePasskey: async ({ params, principal, command }, deps) => {
    await requireRecentSignIn(deps, principal);
    const keepOne = await required(deps, principal);
    const { position } = await removePasskey(deps.commands, principal.userId, params.passkeyId, keepOne, command!);
    await deps.caughtUp(['factors'], position);
    return noBody(204);
  },

  getPolicy: async (_, deps) => ok(await deps.readModels.factors.policy()),

  resetFactors: async ({ params: { id }, command }, deps) => {
    if ((await deps.users.get(id)) === null) throw notFound('user');
    const { position } = await resetFactors(deps.commands, id, command!);
    await deps.caughtUp(['factors'], position);
    return noBody(204);
  },

  setPolicy: async ({ body, command }, deps) => {
    const { position } = await setSecondFactorPolicy(deps.commands, body.require, command!);
    await deps.caughtUp(['factors'], position);
    return ok(await deps.readModels.factors.policy());
  },
};
