import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';
import { DomainError, invalid, notFound } from './errors.ts';
import {
  NO_MASKING_RULES,
  maskingRulesProblems,
  sameRules,
  withoutRepeats,
  type MaskingRules,
} from './masking-rules.ts';
import { NO_RESTRICTIONS, sameRestrictions, scopesOf, type KeyRestrictions } from './api-keys.ts';
import { DEFAULT_OTLP_SETTINGS, sameOtlpSettings, type OtlpSettings } from './otlp-mapping.ts';

/** The project aggregate: its existence, its API keys, its masking rules and OTLP settings. Pure decide/evolve. */
export interface ProjectState {
  readonly id: string | null;
  readonly name: string;
  readonly keys: ReadonlyMap<string, { readonly revoked: boolean; readonly restrictions: KeyRestrictions }>;
  readonly masking: MaskingRules;
  readonly otlp: OtlpSettings;
  /** Days ingested audit events are kept; null: for ever. */
  readonly retentionDays: number | null;
  /** Erasure requests not done yet, by id. */
  readonly pendingErasures: ReadonlySet<string>;
}

export const initialProject: ProjectState = {
  id: null,
  name: '',
  keys: new Map(),
  masking: NO_MASKING_RULES,
  otlp: DEFAULT_OTLP_SETTINGS,
  retentionDays: null,
  pendingErasures: new Set(),
};

export const evolveProject = (state: ProjectState, event: DomainEvent): ProjectState => {
  switch (event.type) {
    case 'ProjectCreated':
      return { ...state, id: event.data.project_id, name: event.data.name };
    case 'ApiKeyIssued': {
      const restrictions = {
        scopes: scopesOf(event.data.scopes),
        expires_at: event.data.expires_at ?? null,
        allowed_origins: event.data.allowed_origins ?? [],
        rate_limit: event.data.rate_limit ?? null,
      };
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: false, restrictions }) };
    }
    case 'ApiKeyRestricted': {
      const key = state.keys.get(event.data.key_id);
      const restrictions = {
        scopes: scopesOf(event.data.scopes),
        expires_at: event.data.expires_at ?? null,
        allowed_origins: event.data.allowed_origins,
        rate_limit: event.data.rate_limit,
      };
      return {
        ...state,
        keys: new Map(state.keys).set(event.data.key_id, { revoked: key?.revoked ?? false, restrictions }),
      };
    }
    case 'ApiKeyRevoked': {
      const key = state.keys.get(event.data.key_id);
      return {
        ...state,
        keys: new Map(state.keys).set(event.data.key_id, {
          revoked: true,
          restrictions: key?.restrictions ?? NO_RESTRICTIONS,
        }),
      };
    }
    case 'MaskingRulesSet':
      return { ...state, masking: { keys: event.data.keys, patterns: event.data.patterns } };
    case 'OtlpSettingsSet': {
      const { identifier_attribute, default_environment, unsupported_methods } = event.data;
      return { ...state, otlp: { identifier_attribute, default_environment, unsupported_methods } };
    }
    case 'RetentionSet':
      return { ...state, retentionDays: event.data.retention_days };
    case 'ErasureRequested':
      return { ...state, pendingErasures: new Set(state.pendingErasures).add(event.data.erasure_id) };
    case 'IdentifierErased': {
      const { erasure_id } = event.data;
      if (erasure_id === undefined) return state;
      const pendingErasures = new Set(state.pendingErasures);
      pendingErasures.delete(erasure_id);
      return { ...state, pendingErasures };
    }
    default:
      return state;
  }
};

export const assertProjectExists = (state: ProjectState): void => {
  if (state.id === null) throw notFound('project');
};

/** An expiry must lie ahead: a key that would never work is a mistake (revoke ends one now). */
const assertExpiryAhead = (expiresAt: string | null | undefined, at: string): void => {
  if (expiresAt !== null && expiresAt !== undefined && Date.parse(expiresAt) <= Date.parse(at))
    throw invalid('API key', [{ path: 'expires_at', message: 'must be in the future' }]);
};

export const assertKeyRevocable = (state: ProjectState, keyId: string): void => {
  assertProjectExists(state);
  const key = state.keys.get(keyId);
  if (!key) throw notFound('API key');
  if (key.revoked) throw new DomainError('conflict', 'API key is already revoked');
};

export type ProjectCommand =
  | { type: 'CreateProject'; project_id: string; name: string; at: string }
  | {
      type: 'IssueApiKey';
      project_id: string;
      key_id: string;
      name: string;
      prefix: string;
      key_hash: string;
      restrictions: KeyRestrictions;
      at: string;
    }
  | { type: 'RestrictApiKey'; project_id: string; key_id: string; restrictions: Partial<KeyRestrictions>; at: string }
  | { type: 'RevokeApiKey'; project_id: string; key_id: string; at: string }
  | { type: 'SetMaskingRules'; project_id: string; rules: MaskingRules; at: string }
  | { type: 'SetOtlpSettings'; project_id: string; settings: OtlpSettings; at: string }
  | { type: 'SetRetention'; project_id: string; retention_days: number | null; at: string }
  | {
      type: 'RecordRetentionApplied';
      project_id: string;
      cutoff: string;
      through_position: string;
      removed: number;
      at: string;
      until?: { timestamp: string; position: string };
    }
  | {
      type: 'RequestErasure';
      project_id: string;
      erasure_id: string;
      identifier: string;
      through_position: string;
      at: string;
    }
  | {
      type: 'RecordErasure';
      project_id: string;
      erasure_id: string;
      identifier: string;
      through_position: string;
      erased: number;
      at: string;
    };

export const projectDecider: Decider<ProjectState, ProjectCommand> = {
  initialState: initialProject,
  evolve: evolveProject,
  decide(command, state) {
    switch (command.type) {
      case 'CreateProject':
        if (state.id !== null) throw new DomainError('conflict', 'project already exists');
        return [
          {
            type: 'ProjectCreated',
            data: { project_id: command.project_id, name: command.name, created_at: command.at },
          },
        ];
      case 'IssueApiKey': {
        assertProjectExists(state);
        const { project_id, key_id, name, prefix, key_hash, restrictions, at } = command;
        assertExpiryAhead(restrictions.expires_at, at);
        return [
          {
            type: 'ApiKeyIssued',
            data: {
              project_id,
              key_id,
              name,
              prefix,
              key_hash,
              issued_at: at,
              ...restrictions,
              scopes: [...restrictions.scopes],
              allowed_origins: [...restrictions.allowed_origins],
            },
          },
        ];
      }
      // The fields given replace the key's; a change that changes nothing records nothing.
      case 'RestrictApiKey': {
        assertKeyRevocable(state, command.key_id);
        const current = state.keys.get(command.key_id)!.restrictions;
        const next = { ...current, ...command.restrictions };
        if (sameRestrictions(current, next)) return [];
        if (next.expires_at !== current.expires_at) assertExpiryAhead(next.expires_at, command.at);
        return [
          {
            type: 'ApiKeyRestricted',
            data: {
              project_id: command.project_id,
              key_id: command.key_id,
              scopes: [...next.scopes],
              expires_at: next.expires_at,
              allowed_origins: [...next.allowed_origins],
              rate_limit: next.rate_limit,
              changed_at: command.at,
            },
          },
        ];
      }
      case 'RevokeApiKey':
        assertKeyRevocable(state, command.key_id);
        return [
          {
            type: 'ApiKeyRevoked',
            data: { project_id: command.project_id, key_id: command.key_id, revoked_at: command.at },
          },
        ];
      // The rules replace the project's; repeats are dropped, and rules that change nothing
      // record nothing.
      case 'SetMaskingRules': {
        assertProjectExists(state);
        const rules = withoutRepeats(command.rules);
        const problems = maskingRulesProblems(rules);
        if (problems.length > 0) throw new DomainError('validation_error', 'invalid masking rules', problems);
        if (sameRules(rules, state.masking)) return [];
        return [
          {
            type: 'MaskingRulesSet',
            data: {
              project_id: command.project_id,
              keys: [...rules.keys],
              patterns: [...rules.patterns],
              updated_at: command.at,
            },
          },
        ];
      }
      // Settings that change nothing record nothing.
      case 'SetOtlpSettings': {
        assertProjectExists(state);
        if (sameOtlpSettings(command.settings, state.otlp)) return [];
        const { identifier_attribute, default_environment, unsupported_methods } = command.settings;
        return [
          {
            type: 'OtlpSettingsSet',
            data: {
              project_id: command.project_id,
              identifier_attribute,
              default_environment,
              unsupported_methods,
              updated_at: command.at,
            },
          },
        ];
      }
      case 'SetRetention':
        assertProjectExists(state);
        if (command.retention_days === state.retentionDays) return [];
        return [
          {
            type: 'RetentionSet',
            data: { project_id: command.project_id, retention_days: command.retention_days, updated_at: command.at },
          },
        ];
      // The log's records were already replaced (src/commands/retention.ts); these tell the read
      // models to drop or erase their rows of them, and stand as the record that it was done.
      case 'RecordRetentionApplied': {
        assertProjectExists(state);
        const { project_id, cutoff, through_position, removed, at, until } = command;
        return [
          {
            type: 'RetentionApplied',
            data: { project_id, cutoff, through_position, removed, applied_at: at, ...(until ? { until } : {}) },
          },
        ];
      }
      case 'RequestErasure': {
        assertProjectExists(state);
        const { project_id, erasure_id, identifier, through_position, at } = command;
        if (state.pendingErasures.has(erasure_id)) throw new DomainError('conflict', 'erasure already requested');
        return [
          {
            type: 'ErasureRequested',
            data: { project_id, erasure_id, identifier, through_position, requested_at: at },
          },
        ];
      }
      // A request already done records nothing: the erasure job may run one again after a crash
      // between this event and its read model showing it.
      case 'RecordErasure': {
        assertProjectExists(state);
        const { project_id, erasure_id, identifier, through_position, erased, at } = command;
        if (!state.pendingErasures.has(erasure_id)) return [];
        return [
          {
            type: 'IdentifierErased',
            data: { project_id, erasure_id, identifier, through_position, erased, erased_at: at },
          },
        ];
      }
    }
  },
};
