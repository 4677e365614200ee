import type { Role } from '../../domain/codecs.ts';
import type { Scope } from '../../domain/scope.ts';

/** Projects, API keys, users. */

export interface ProjectView { id: string; name: string; created_at: string }
export interface ApiKeyView {
  id: string; project_id: string; name: string; prefix: string; created_at: string; revoked_at: string | null;
}
export interface UserView {
  id: string; email: string; role: Role; project_ids: string[]; created_at: string;
}
export interface UserCredentials extends UserView { password_hash: string }

export interface AccessWriter {
  projectCreated(p: ProjectView): void;
  apiKeyIssued(k: ApiKeyView & { key_hash: string }): void;
  apiKeyRevoked(keyId: string, revokedAt: string): void;
  userRegistered(u: UserCredentials): void;
}

export interface AccessQueries {
  /** The project of an active (not revoked) key, by the SHA-256 hex of the key. */
  projectOfKey(keyHash: string): Promise<string | null>;
  listProjects(scope: Scope): Promise<ProjectView[]>;
  getProject(id: string, scope: Scope): Promise<ProjectView | null>;
  listApiKeys(projectId: string): Promise<ApiKeyView[]>;
  userByEmail(email: string): Promise<UserCredentials | null>;
  listUsers(): Promise<UserView[]>;
  countUsers(): Promise<number>;
}
