import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.ts';
import { type FactorsState, factorsDecider, policyDecider, type SecondFactorRequirement } from '../domain/factors.ts';
import { seal, unseal } from '../domain/sealed.ts';
import { SECOND_FACTOR_POLICY_STREAM, factorsStream } from '../domain/streams.ts';
import { base32Decode, base32Encode, matchTotp } from '../domain/totp.ts';
import { type CommandContext, type CommandDeps, handle, load } from './handle.ts';

/** A user's second factors: each command loads the user's factors stream, decides and appends at
 *  the revision it read, so a code or a challenge is taken once even when two requests race. */

/** What the TOTP commands need besides the log: the key TOTP secrets are sealed with, and those
 *  of the JWT secrets it replaced (WATCHLOG_JWT_SECRET_PREVIOUS), which still unseal. */
export interface FactorCommandDeps extends CommandDeps {
  readonly factorKey: Buffer;
  readonly previousFactorKeys?: readonly Buffer[];
  /** A user's enrolled secret unseals under none of the keys. */
  readonly onUnsealFailed?: (userId: string) => void;
}

const context = (userId: string) => `watchlog totp secret ${userId}`;

/** A new secret (160 bits, RFC 4226's recommendation), in base32 as apps take it. */
export const newTotpSecret = (): string => base32Encode(randomBytes(20));

/** A secret sealed for one user, for a setup token: shown to the user once, never stored plain. */
export const sealTotpSecret = (key: Buffer, userId: string, secret: string): string =>
  seal(key, context(userId), Buffer.from(secret));

/** Under the first of `keys` it was sealed with; null under none. */
export const unsealTotpSecret = (keys: readonly Buffer[], userId: string, sealed: string): string | null => {
  for (const key of keys) {
    const plain = unseal(key, context(userId), sealed);
    if (plain !== null) return plain.toString();
  }
  return null;
};

const totpKeysOf = (deps: Pick<FactorCommandDeps, 'factorKey' | 'previousFactorKeys'>) => [
  deps.factorKey,
  ...(deps.previousFactorKeys ?? []),
];

const wrongCode = () => new DomainError('unauthorized', 'wrong or used code');

const at = (ctx: CommandContext) => ctx.now().toISOString();

/** Ten recovery codes of 80 random bits each (`xxxx-xxxx-xxxx-xxxx`, base32): too many to guess,
 *  so each is stored as its SHA-256 alone, as API keys are. */
const RECOVERY_CODES = 10;
const newRecoveryCode = () =>
  base32Encode(randomBytes(10))
    .toLowerCase()
    .replace(/(.{4})(?!$)/g, '$1-');
/** Case, spaces and dashes are forgiven. */
export const recoveryCodeHash = (code: string): string =>
  createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');

/** New recovery codes replace the user's old ones, which stop working. */
export const generateRecoveryCodes = async (deps: CommandDeps, userId: string, ctx: CommandContext) => {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const handled = await handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'GenerateRecoveryCodes', user_id: userId, code_hashes: codes.map(recoveryCodeHash), at: at(ctx) },
    ctx,
  );
  return { codes, position: handled.position };
};

/** After a first factor: recovery codes, unless the user has some already. */
const codesIfNone = async (deps: CommandDeps, userId: string, state: FactorsState, ctx: CommandContext) =>
  state.recoveryCodes.length > 0 ? null : generateRecoveryCodes(deps, userId, ctx);

/** Enrols the secret of a setup once `code` proves the app has it; that code's step is taken, so
 *  it does not sign in again. Answers the recovery codes when the user had none. */
export const enrolTotp = async (
  deps: FactorCommandDeps,
  userId: string,
  secret: string,
  code: string,
  ctx: CommandContext,
) => {
  const bytes = base32Decode(secret);
  const step = bytes && matchTotp(bytes, code, ctx.now(), null);
  if (step === null || step === undefined) throw wrongCode();
  const sealed = sealTotpSecret(deps.factorKey, userId, secret);
  const stream = factorsStream(userId);
  await handle(
    deps,
    stream,
    factorsDecider,
    { type: 'EnrolTotp', user_id: userId, secret_sealed: sealed, at: at(ctx) },
    ctx,
  );
  const used = await handle(deps, stream, factorsDecider, { type: 'UseTotp', user_id: userId, step, at: at(ctx) }, ctx);
  const recovery = await codesIfNone(deps, userId, used.state, ctx);
  return { recoveryCodes: recovery?.codes ?? null, position: recovery?.position ?? used.position };
};

/** A sign-in's TOTP code: good within a step of now, and later than the last code taken. */
export const useTotp = async (deps: FactorCommandDeps, userId: string, code: string, ctx: CommandContext) => {
  const loaded = await load(deps.log, factorsStream(userId), factorsDecider);
  const totp = loaded.state.totp;
  const secret = totp && unsealTotpSecret(totpKeysOf(deps), userId, totp.sealed);
  if (totp && secret === null) deps.onUnsealFailed?.(userId);
  const bytes = secret ? base32Decode(secret) : null;
  const step = bytes && matchTotp(bytes, code, ctx.now(), totp?.lastStep ?? null);
  if (step === null || step === undefined) throw wrongCode();
  return handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'UseTotp', user_id: userId, step, at: at(ctx) },
    ctx,
    loaded,
  );
};

export const useRecoveryCode = (deps: CommandDeps, userId: string, code: string, ctx: CommandContext) =>
  handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'UseRecoveryCode', user_id: userId, code_hash: recoveryCodeHash(code), at: at(ctx) },
    ctx,
  );

export const removeTotp = (deps: CommandDeps, userId: string, keepOne: boolean, ctx: CommandContext) =>
  handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'RemoveTotp', user_id: userId, keepOne, at: at(ctx) },
    ctx,
  );

/** Every factor and recovery code of a user, by an admin (the user then signs in with the password
 *  alone, or enrols again where the policy asks). Nothing to remove records nothing. */
export const resetFactors = (deps: CommandDeps, userId: string, ctx: CommandContext) =>
  handle(deps, factorsStream(userId), factorsDecider, { type: 'ResetFactors', user_id: userId, at: at(ctx) }, ctx);

export interface NewPasskey {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: string[];
  readonly name: string;
}

/** A verified registration (src/commands/passkeys.ts); recovery codes when the user had none. */
export const addPasskey = async (deps: CommandDeps, userId: string, passkey: NewPasskey, ctx: CommandContext) => {
  const passkeyId = randomUUID();
  const added = await handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    {
      type: 'RegisterPasskey',
      user_id: userId,
      passkey_id: passkeyId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
      name: passkey.name,
      at: at(ctx),
    },
    ctx,
  );
  const recovery = await codesIfNone(deps, userId, added.state, ctx);
  return { passkeyId, recoveryCodes: recovery?.codes ?? null, position: recovery?.position ?? added.position };
};

export const renamePasskey = (
  deps: CommandDeps,
  userId: string,
  passkeyId: string,
  name: string,
  ctx: CommandContext,
) =>
  handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'RenamePasskey', user_id: userId, passkey_id: passkeyId, name, at: at(ctx) },
    ctx,
  );

export const removePasskey = (
  deps: CommandDeps,
  userId: string,
  passkeyId: string,
  keepOne: boolean,
  ctx: CommandContext,
) =>
  handle(
    deps,
    factorsStream(userId),
    factorsDecider,
    { type: 'RemovePasskey', user_id: userId, passkey_id: passkeyId, keepOne, at: at(ctx) },
    ctx,
  );

export const setSecondFactorPolicy = (deps: CommandDeps, require: SecondFactorRequirement, ctx: CommandContext) =>
  handle(deps, SECOND_FACTOR_POLICY_STREAM, policyDecider, { type: 'SetPolicy', require, at: at(ctx) }, ctx);

/** The user's factors as their stream has them now (for a passkey's public key and counter, and
 *  for whether a password alone signs in). */
export const loadFactors = (deps: CommandDeps, userId: string) => load(deps.log, factorsStream(userId), factorsDecider);

/** The second-factor policy as its stream has it now. */
export const loadPolicy = (deps: CommandDeps) => load(deps.log, SECOND_FACTOR_POLICY_STREAM, policyDecider);
