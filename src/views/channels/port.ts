import type { ChannelEvents, ChannelTarget } from '../../domain/channel.ts';
import type { Scope } from '../../domain/scope.ts';

/** A channel as the API shows it: the webhook URL or push endpoint, never a secret or key. */
export interface ChannelView {
  id: string;
  project_id: string;
  type: 'webhook' | 'webpush';
  /** The webhook URL or the push endpoint. */
  url: string;
  has_secret: boolean;
  events: ChannelEvents;
  active: boolean;
  deactivated_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChannelsWriter {
  created(view: ChannelView, target: ChannelTarget): void;
  updated(id: string, changes: { active?: boolean; events?: ChannelEvents }, updatedAt: string): void;
  deactivated(id: string, reason: string, at: string): void;
  deleted(id: string): void;
}

export interface ChannelsQueries {
  list(scope: Scope, projectId?: string): Promise<ChannelView[]>;
  get(id: string, scope: Scope): Promise<ChannelView | null>;
  /** Active channels of a project that opted in to `kind`, with their targets (for delivery). */
  targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<Array<{ id: string; target: ChannelTarget }>>;
}
