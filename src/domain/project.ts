import type { DomainEvent } from './events.ts';
import { DomainError, notFound } from './errors.ts';

/** The project aggregate: its existence and its API keys. Pure decide/evolve. */
export interface ProjectState {
  readonly id: string | null;
  readonly name: string;
  readonly keys: ReadonlyMap<string, { readonly revoked: boolean }>;
}

export const initialProject: ProjectState = { id: null, name: '', keys: new Map() };

export const evolveProject = (state: ProjectState, event: DomainEvent): ProjectState => {
  switch (event.type) {
    case 'ProjectCreated':
      return { ...state, id: event.data.project_id, name: event.data.name };
    case 'ApiKeyIssued':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: false }) };
    case 'ApiKeyRevoked':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: true }) };
    default:
      return state;
  }
};

export const assertProjectExists = (state: ProjectState): void => {
  if (state.id === null) throw notFound('project');
};

export const assertKeyRevocable = (state: ProjectState, keyId: string): void => {
  assertProjectExists(state);
  const key = state.keys.get(keyId);
  if (!key) throw notFound('API key');
  if (key.revoked) throw new DomainError('conflict', 'API key is already revoked');
};
