import type { DeliveryStatus } from '../../domain/delivery.ts';
import type { Page, PageRequest } from '../../domain/page.ts';
import type { NoticeType } from '../../domain/subscriber-mail.ts';
import type { SubscriberStatus } from '../../domain/subscriber.ts';

/** Status pages' e-mail subscribers, by page: who they are (personal data: the admin API shows
 *  it to a project's admins and members only, no public answer ever reads it), where each
 *  subscription stands, and the last delivery sent to each. A subscription removed (by an admin,
 *  or with its page) leaves every answer but is kept, as the log keeps its records, until an
 *  erasure of its address (IdentifierErased) takes both. */

export interface LastDelivery {
  id: string;
  type: NoticeType;
  status: DeliveryStatus;
  /** When it was scheduled, or last tried. */
  at: string;
}

export interface SubscriberView {
  id: string;
  page_id: string;
  project_id: string;
  email: string;
  status: SubscriberStatus;
  /** The first request. */
  created_at: string;
  updated_at: string;
  /** The last confirmation asked for. */
  requested_at: string;
  confirmed_at: string | null;
  unsubscribed_at: string | null;
  last_delivery: LastDelivery | null;
}

export type SubscriberCounts = Record<SubscriberStatus, number>;

/** Who a notice goes to. */
export interface Recipient {
  id: string;
  page_id: string;
  email: string;
}

/** Every write is keyed by the subscription (and a delivery's id), so a batch written again
 *  after a crash lands on the same rows. */
export interface SubscribersWriter {
  /** Asked for: a new subscription, or one pending again (its confirmation sent again). */
  requested(s: { id: string; page_id: string; project_id: string; email: string; at: string }): void;
  confirmed(id: string, at: string): void;
  unsubscribed(id: string, at: string): void;
  removed(id: string): void;
  /** Its page is deleted: its subscriptions are removed. */
  pageDeleted(pageId: string): void;
  /** An erasure of this address: the project's subscriptions of it are gone. */
  erased(projectId: string, email: string): void;
  /** A delivery to the subscriber was scheduled: its last. */
  delivery(subscriberId: string, delivery: LastDelivery): void;
  /** A try or a cancellation of a delivery: changes the subscriber's last only when it is that one. */
  deliveryStatus(subscriberId: string, deliveryId: string, status: DeliveryStatus, at: string): void;
}

export interface SubscribersQueries {
  /** A page's subscribers, newest first (of one status, when given). */
  list(pageId: string, request: PageRequest & { status?: SubscriberStatus }): Promise<Page<SubscriberView>>;
  counts(pageId: string): Promise<SubscriberCounts>;
  /** The confirmed subscribers of these pages, by page in the order given, oldest first. */
  confirmed(pageIds: readonly string[]): Promise<Recipient[]>;
  get(id: string): Promise<SubscriberView | null>;
  /** The ids of a project's subscriptions of this address, removed ones too: the streams the
   *  erasure of an identifier equal to it replaces. */
  withEmail(projectId: string, email: string): Promise<string[]>;
}
