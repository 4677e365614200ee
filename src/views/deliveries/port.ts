import type { ChannelType } from '../../domain/channel.ts';
import type { AttemptOutcome, DeliveryStatus } from '../../domain/delivery.ts';
import type { Notification } from '../../domain/notification.ts';
import type { Page, PageRequest } from '../../domain/page.ts';
import type { Scope } from '../../domain/scope.ts';

/** The delivery log: every notification to every channel, with each try. Projected from the
 *  delivery streams, so it is rebuilt like any read model. */

export interface AttemptView {
  attempt: number;
  at: string;
  outcome: AttemptOutcome;
  /** The provider's HTTP status (SMTP: its reply code); null when no answer came. */
  status: number | null;
  error: string | null;
  /** The start of the provider's answer. */
  response: string | null;
  duration_ms: number;
}

export interface DeliveryView {
  id: string;
  channel_id: string;
  channel_type: ChannelType;
  /** The project of the event it notifies of. */
  project_id: string;
  event_id: string;
  event_type: Notification['type'];
  /** What it says, in one line ("orders is DOWN"). */
  title: string;
  status: DeliveryStatus;
  /** Why it was skipped or cancelled. */
  reason: string | null;
  attempts: AttemptView[];
  created_at: string;
  updated_at: string;
}

export interface DeliveriesWriter {
  /** A delivery scheduled or skipped; idempotent per id. */
  created(view: DeliveryView): void;
  attempted(id: string, attempt: AttemptView, status: DeliveryStatus): void;
  /** A retry asked for (pending again) or a cancellation. */
  statusChanged(id: string, status: DeliveryStatus, reason: string | null, at: string): void;
}

export interface DeliveryListQuery extends PageRequest {
  status?: DeliveryStatus;
}

export interface DeliveriesQueries {
  /** A channel's deliveries of events in projects the caller sees, newest first. */
  forChannel(channelId: string, query: DeliveryListQuery, scope: Scope): Promise<Page<DeliveryView>>;
  /** An event's deliveries, by channel. */
  forEvent(eventId: string, scope: Scope): Promise<DeliveryView[]>;
  get(id: string, scope: Scope): Promise<DeliveryView | null>;
}
