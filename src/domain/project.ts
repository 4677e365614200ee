import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';
import { DomainError, notFound } from './errors.ts';
import { NO_MASKING_RULES, maskingRulesProblems, sameRules, withoutRepeats, type MaskingRules } from './masking-rules.ts';

/** The project aggregate: its existence, its API keys and its masking rules. Pure decide/evolve. */
export interface ProjectState {
  readonly id: string | null;
  readonly name: string;
  readonly keys: ReadonlyMap<string, { readonly revoked: boolean }>;
  readonly masking: MaskingRules;
}

export const initialProject: ProjectState = { id: null, name: '', keys: new Map(), masking: NO_MASKING_RULES };

export const evolveProject = (state: ProjectState, event: DomainEvent): ProjectState => {
  switch (event.type) {
    case 'ProjectCreated':
      return { ...state, id: event.data.project_id, name: event.data.name };
    case 'ApiKeyIssued':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: false }) };
    case 'ApiKeyRevoked':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: true }) };
    case 'MaskingRulesSet':
      return { ...state, masking: { keys: event.data.keys, patterns: event.data.patterns } };
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

export type ProjectCommand =
  | { type: 'CreateProject'; project_id: string; name: string; at: string }
  | { type: 'IssueApiKey'; project_id: string; key_id: string; name: string; prefix: string; key_hash: string; at: string }
  | { type: 'RevokeApiKey'; project_id: string; key_id: string; at: string }
  | { type: 'SetMaskingRules'; project_id: string; rules: MaskingRules; at: string };

export const projectDecider: Decider<ProjectState, ProjectCommand> = {
  initialState: initialProject,
  evolve: evolveProject,
  decide(command, state) {
    switch (command.type) {
      case 'CreateProject':
        if (state.id !== null) throw new DomainError('conflict', 'project already exists');
        return [{ type: 'ProjectCreated', data: { project_id: command.project_id, name: command.name, created_at: command.at } }];
      case 'IssueApiKey': {
        assertProjectExists(state);
        const { project_id, key_id, name, prefix, key_hash, at } = command;
        return [{ type: 'ApiKeyIssued', data: { project_id, key_id, name, prefix, key_hash, issued_at: at } }];
      }
      case 'RevokeApiKey':
        assertKeyRevocable(state, command.key_id);
        return [{ type: 'ApiKeyRevoked', data: { project_id: command.project_id, key_id: command.key_id, revoked_at: command.at } }];
      // The rules replace the project's; repeats are dropped, and rules that change nothing
      // record nothing.
      case 'SetMaskingRules': {
        assertProjectExists(state);
        const rules = withoutRepeats(command.rules);
        const problems = maskingRulesProblems(rules);
        if (problems.length > 0) throw new DomainError('validation_error', 'invalid masking rules', problems);
        if (sameRules(rules, state.masking)) return [];
        return [{ type: 'MaskingRulesSet', data: { project_id: command.project_id, keys: [...rules.keys], patterns: [...rules.patterns], updated_at: command.at } }];
      }
    }
  },
};
