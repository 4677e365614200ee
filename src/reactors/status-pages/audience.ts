import { monitorIdsOf } from '../../domain/status-page.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import type { Recipient } from '../../views/subscribers/port.ts';

/** Who hears of an incident or a maintenance window: the published pages of its project that
 *  show it, and their confirmed subscribers, each address once. */

/** What a notice is about: the monitors it names (none: the whole project), or every monitor. */
export type Concerns = readonly string[] | 'all';

/** The published pages of the project that show it: an incident naming no monitor, or a window
 *  for "all", is shown by every one; else a page shows it when it shows one of its monitors. */
export const pagesShowing = (pages: readonly StatusPageView[], projectId: string, concerns: Concerns) =>
  pages.filter((page) => {
    if (page.project_id !== projectId || !page.published) return false;
    if (concerns === 'all' || concerns.length === 0) return true;
    const shown = new Set(monitorIdsOf(page.groups));
    return concerns.some((id) => shown.has(id));
  });

/** Each address once: the first of its subscriptions, in the order of the pages given (an
 *  address subscribed to two pages that show an incident gets one message, about the first). */
export const oncePerAddress = (recipients: readonly Recipient[]): Recipient[] => {
  const seen = new Set<string>();
  return recipients.filter((r) => {
    if (seen.has(r.email)) return false;
    seen.add(r.email);
    return true;
  });
};
