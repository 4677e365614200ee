import type { ChannelEvents, ChannelTarget, ChannelType, ProjectScope } from '../../domain/channel.ts';
import type { Scope } from '../../domain/scope.ts';

/** A channel as the API shows it: where it sends and its non-secret settings, never a secret,
 *  a key, or a chat webhook's token. */
export interface ChannelView {
  id: string;
  project_id: string;
  type: ChannelType;
  name: string | null;
  /** Where it sends: the webhook URL, the push endpoint, a chat webhook's origin, the SMTP
   *  server, the PagerDuty endpoint, the ntfy topic's URL. */
  url: string;
  has_secret: boolean;
  /** The type's other settings, without secrets (e-mail: from, to, SMTP host and TLS options). */
  settings: Record<string, unknown>;
  events: ChannelEvents;
  project_scope: ProjectScope;
  quiet_minutes: number;
  active: boolean;
  deactivated_reason: string | null;
  /** Deliveries kept failing; the channel still gets them. */
  degraded: boolean;
  degraded_reason: string | null;
  degraded_since: string | null;
  created_at: string;
  updated_at: string;
  /** Absent on a channel made by hand (docs/config-file.md). */
  managed_by?: string;
}

export type ChannelChanges = {
  active?: boolean;
  events?: ChannelEvents;
  name?: string | null;
  quiet_minutes?: number;
  managed_by?: string;
};

export interface ChannelsWriter {
  created(view: ChannelView, target: ChannelTarget): void;
  updated(id: string, changes: ChannelChanges, updatedAt: string): void;
  deactivated(id: string, reason: string, at: string): void;
  degraded(id: string, reason: string, at: string): void;
  recovered(id: string): void;
  deleted(id: string): void;
}

/** A channel with what delivering to it needs. */
export interface ChannelTargetRow {
  id: string;
  target: ChannelTarget;
  view: ChannelView;
}

/** A channel for all projects is listed and found for admins (whose scope is every project) only. */
export interface ChannelsQueries {
  list(scope: Scope, projectId?: string): Promise<ChannelView[]>;
  get(id: string, scope: Scope): Promise<ChannelView | null>;
  /** Active channels that take `kind` events of the project: its own, and those of any project
   *  whose scope is all projects. */
  targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<ChannelTargetRow[]>;
  /** One channel with its target, active or not; null once deleted. */
  target(id: string): Promise<ChannelTargetRow | null>;
}
