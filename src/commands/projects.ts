import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { MaskingRules } from '../domain/masking-rules.ts';
import type { KeyRestrictions } from '../domain/api-keys.ts';
import type { OtlpSettings } from '../domain/otlp-mapping.ts';
import { assertProjectExists, projectDecider } from '../domain/project.ts';
import { projectStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';

/** A command about a project's resources needs the project (not_found otherwise). */
export const requireProject = async (deps: CommandDeps, projectId: string): Promise<void> =>
  assertProjectExists((await load(deps.log, projectStream(projectId), projectDecider)).state);

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const createProject = async (deps: CommandDeps, name: string, ctx: CommandContext) => {
  const id = randomUUID();
  const handled = await handle(
    deps,
    projectStream(id),
    projectDecider,
    { type: 'CreateProject', project_id: id, name, at: ctx.now().toISOString() },
    ctx,
  );
  return { ...handled, id };
};

/** The key is returned here, once; the log keeps only its SHA-256 and a display prefix. */
export const issueApiKey = async (
  deps: CommandDeps,
  projectId: string,
  name: string,
  restrictions: KeyRestrictions,
  ctx: CommandContext,
) => {
  const key = `wl_${randomBytes(24).toString('base64url')}`;
  const issued = {
    key_id: randomUUID(),
    name,
    prefix: key.slice(0, 11),
    key_hash: hashApiKey(key),
    at: ctx.now().toISOString(),
  };
  const handled = await handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'IssueApiKey', project_id: projectId, ...issued, restrictions },
    ctx,
  );
  return {
    ...handled,
    key,
    issued: {
      id: issued.key_id,
      name,
      prefix: issued.prefix,
      key,
      created_at: issued.at,
      scopes: [...restrictions.scopes],
      expires_at: restrictions.expires_at,
      allowed_origins: [...restrictions.allowed_origins],
      rate_limit: restrictions.rate_limit,
    },
  };
};

/** Changes what a key may do, until when, the origins it may be used from and its rate (the
 *  fields given). */
export const restrictApiKey = (
  deps: CommandDeps,
  projectId: string,
  keyId: string,
  restrictions: Partial<KeyRestrictions>,
  ctx: CommandContext,
) =>
  handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'RestrictApiKey', project_id: projectId, key_id: keyId, restrictions, at: ctx.now().toISOString() },
    ctx,
  );

export const revokeApiKey = (deps: CommandDeps, projectId: string, keyId: string, ctx: CommandContext) =>
  handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'RevokeApiKey', project_id: projectId, key_id: keyId, at: ctx.now().toISOString() },
    ctx,
  );

/** Replaces the project's own masking rules (validation_error naming each faulty entry). */
export const setMaskingRules = (deps: CommandDeps, projectId: string, rules: MaskingRules, ctx: CommandContext) =>
  handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'SetMaskingRules', project_id: projectId, rules, at: ctx.now().toISOString() },
    ctx,
  );

/** Replaces the project's OTLP settings (docs/otlp.md); the same settings record nothing. */
export const setOtlpSettings = (deps: CommandDeps, projectId: string, settings: OtlpSettings, ctx: CommandContext) =>
  handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'SetOtlpSettings', project_id: projectId, settings, at: ctx.now().toISOString() },
    ctx,
  );
