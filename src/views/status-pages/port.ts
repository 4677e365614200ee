import type { Scope } from '../../domain/scope.ts';
import type { StatusPageChanges, StatusPageSettings } from '../../domain/status-page.ts';

/** Status pages, and how current each one's public answers are. */

export type StatusPageView = StatusPageSettings & {
  id: string;
  project_id: string;
  created_at: string;
  updated_at: string;
};

/** What a page shows changed at this log position: the page's public answers made before it
 *  are stale. The projection moves it for the page's own changes, and for the events of its
 *  project that a page shows (a monitor's state, a failed check, incidents, maintenance). */
export interface PageVersion {
  page_id: string;
  version: string;
}

/** A version only ever moves forward (to a later position), so writes may land in any order
 *  within a batch, and a replayed one changes nothing. */
export interface StatusPagesWriter {
  /** A page at version `position`; a page of that id already there is left as it is. */
  created(view: StatusPageView, position: string): void;
  updated(id: string, changes: StatusPageChanges, updatedAt: string, position: string): void;
  deleted(id: string): void;
  /** Moves the version of the project's pages that show `monitorId` (every page of the project
   *  when null) to `position`. */
  touched(projectId: string, monitorId: string | null, position: string): void;
}

export interface StatusPagesQueries {
  /** Oldest first, within scope (and the project, when given). */
  list(scope: Scope, projectId?: string): Promise<StatusPageView[]>;
  get(id: string, scope: Scope): Promise<StatusPageView | null>;
  bySlug(slug: string): Promise<StatusPageView | null>;
  /** The page served at this custom domain (lower-case, no port). */
  byDomain(host: string): Promise<StatusPageView | null>;
  /** The version of a page's public answers; null when there is no such page. One indexed read:
   *  every public request asks it. */
  version(id: string): Promise<string | null>;
  /** Pages (any project) that show this monitor and open incidents on their own. */
  autoIncidentPages(monitorId: string): Promise<StatusPageView[]>;
  /** Published pages that show this monitor: whether its badges are public. */
  publishedShowing(monitorId: string): Promise<number>;
}
