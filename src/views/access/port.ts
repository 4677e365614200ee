import type { Role } from '../../domain/codecs.ts';
import type { KeyScope } from '../../domain/api-keys.ts';
import type { Scope } from '../../domain/scope.ts';

/** Projects, API keys, users. */

export interface ProjectView {
  id: string;
  name: string;
  created_at: string;
}
/** `scopes`: what it may do; `expires_at`: when it stops working (null: never);
 *  `allowed_origins`: the browser origins it may be used from ([]: any); `rate_limit`: its
 *  events per second (null: the deployment's default); `last_used_at`: to the minute (null: never
 *  used since it had a use recorded). */
export interface ApiKeyView {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  scopes: KeyScope[];
  expires_at: string | null;
  allowed_origins: string[];
  rate_limit: number | null;
  last_used_at: string | null;
}
/** A key that is not revoked, as authentication needs it (an expired one too: it is refused
 *  with its own message). */
export type ActiveKey = Pick<
  ApiKeyView,
  'id' | 'project_id' | 'scopes' | 'expires_at' | 'allowed_origins' | 'rate_limit' | 'last_used_at'
>;
/** What a change of a key's restrictions sets. */
export type KeyRestrictionsView = Pick<ApiKeyView, 'scopes' | 'expires_at' | 'allowed_origins' | 'rate_limit'>;
/** A user as the API shows it. `tokens_valid_after`: tokens issued before this time are refused
 *  (set by a password change, a change of role or projects, and disabling); null until then. */
export interface UserView {
  id: string;
  email: string;
  role: Role;
  project_ids: string[];
  disabled: boolean;
  tokens_valid_after: string | null;
  created_at: string;
}
export interface UserCredentials extends UserView {
  password_hash: string;
}
/** What a user event changes in a user's row. */
export type UserChanges = Partial<
  Pick<UserCredentials, 'role' | 'project_ids' | 'disabled' | 'tokens_valid_after' | 'password_hash'>
>;

export interface AccessWriter {
  projectCreated(p: ProjectView): void;
  apiKeyIssued(k: ApiKeyView & { key_hash: string }): void;
  apiKeyRestricted(keyId: string, restrictions: KeyRestrictionsView): void;
  apiKeyRevoked(keyId: string, revokedAt: string): void;
  /** Moves `last_used_at` forward to `usedAt`, never back. */
  apiKeyUsed(keyId: string, usedAt: string): void;
  userRegistered(u: UserCredentials): void;
  userChanged(id: string, changes: UserChanges): void;
}

export interface AccessQueries {
  /** A key that is not revoked (perhaps expired), by the SHA-256 hex of the key. */
  activeKey(keyHash: string): Promise<ActiveKey | null>;
  listProjects(scope: Scope): Promise<ProjectView[]>;
  getProject(id: string, scope: Scope): Promise<ProjectView | null>;
  listApiKeys(projectId: string): Promise<ApiKeyView[]>;
  userByEmail(email: string): Promise<UserCredentials | null>;
  /** Without the password hash. */
  userById(id: string): Promise<UserView | null>;
  listUsers(): Promise<UserView[]>;
  countUsers(): Promise<number>;
}
