import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { assertKeyRevocable, assertProjectExists, evolveProject, initialProject } from '../domain/project.ts';
import { loadAggregate, newEvent, type CommandContext, type CommandDeps } from './context.ts';

export const projectStream = (id: string) => `project-${id}`;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const createProject = async (deps: CommandDeps, name: string, ctx: CommandContext) => {
  const project = { project_id: randomUUID(), name, created_at: ctx.now().toISOString() };
  const { position } = await deps.log.append(projectStream(project.project_id), [newEvent('ProjectCreated', project, ctx)], 'no_stream');
  await deps.accessSettled(position);
  return { id: project.project_id, name: project.name, created_at: project.created_at };
};

/** The key is returned once; the log keeps only its SHA-256 and a display prefix. */
export const issueApiKey = async (deps: CommandDeps, projectId: string, name: string, ctx: CommandContext) => {
  const { state, revision } = await loadAggregate(deps.log, projectStream(projectId), initialProject, evolveProject);
  assertProjectExists(state);
  const key = `wl_${randomBytes(24).toString('base64url')}`;
  const issued = {
    project_id: projectId, key_id: randomUUID(), name, prefix: key.slice(0, 11),
    key_hash: hashApiKey(key), issued_at: ctx.now().toISOString(),
  };
  const { position } = await deps.log.append(projectStream(projectId), [newEvent('ApiKeyIssued', issued, ctx)], revision);
  await deps.accessSettled(position);
  return { id: issued.key_id, name, prefix: issued.prefix, key, created_at: issued.issued_at };
};

export const revokeApiKey = async (deps: CommandDeps, projectId: string, keyId: string, ctx: CommandContext) => {
  const { state, revision } = await loadAggregate(deps.log, projectStream(projectId), initialProject, evolveProject);
  assertKeyRevocable(state, keyId);
  const revoked = { project_id: projectId, key_id: keyId, revoked_at: ctx.now().toISOString() };
  const { position } = await deps.log.append(projectStream(projectId), [newEvent('ApiKeyRevoked', revoked, ctx)], revision);
  await deps.accessSettled(position);
};
