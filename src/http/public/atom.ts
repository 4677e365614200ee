import { isUuid } from '../../domain/codecs.ts';
import { derivedId, type PublicIncident, type PublicMaintenance, type PublicStatus } from './status-model.ts';
import { escapeMarkup as e, humanTime, INCIDENT_STATUS_TEXT } from './text.ts';

/** GET /status/:slug/feed.atom: an Atom 1.0 feed (RFC 4287) of the page's incidents, one entry
 *  per update, and of its open and upcoming maintenance, one entry per window. Ids are
 *  `urn:uuid:` URIs that never change for an entry, so a reader shows each update once; an
 *  update's own id when it is a UUID, else one derived from it. Content is plain text. */

export const MAX_FEED_ENTRIES = 100;

interface Entry {
  id: string;
  title: string;
  updated: string;
  published: string;
  link: string;
  category: 'incident' | 'maintenance';
  content: string;
}

const urn = (id: string) => `urn:uuid:${isUuid(id) ? id.toLowerCase() : derivedId('feed', id)}`;

/** RFC 3339, as Atom requires; a stored time is ISO 8601 already, this only makes sure. */
const rfc3339 = (iso: string): string => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString();
};

const incidentEntries = (i: PublicIncident, pageUrl: string): Entry[] =>
  i.updates.map((u) => ({
    id: urn(u.id),
    title: `${i.title}: ${INCIDENT_STATUS_TEXT[u.status]}`,
    updated: rfc3339(u.at),
    published: rfc3339(u.at),
    link: `${pageUrl}#incident-${encodeURIComponent(i.id)}`,
    category: 'incident' as const,
    content: u.message,
  }));

const maintenanceEntry = (m: PublicMaintenance, pageUrl: string): Entry => {
  const affects = m.monitors === 'all' ? 'all services' : m.monitors.map((x) => x.name).join(', ');
  const state = m.state === 'active' ? 'Under way' : 'Scheduled';
  const when = `${state} from ${humanTime(m.starts_at)} to ${humanTime(m.ends_at)}.`;
  const text = m.description === null || m.description === '' ? '' : `\n\n${m.description}`;
  return {
    id: `urn:uuid:${derivedId(m.id, m.starts_at)}`,
    title: `Maintenance: ${m.title}`,
    // A window that opens is news again: its entry is updated as it starts.
    updated: rfc3339(m.state === 'active' && m.starts_at > m.updated_at ? m.starts_at : m.updated_at),
    published: rfc3339(m.created_at),
    link: `${pageUrl}#maint-h`,
    category: 'maintenance',
    content: `${when} Affects ${affects}.${text}`,
  };
};

const entryXml = (x: Entry): string =>
  '<entry>' +
  `<id>${e(x.id)}</id>` +
  `<title type="text">${e(x.title)}</title>` +
  `<updated>${e(x.updated)}</updated>` +
  `<published>${e(x.published)}</published>` +
  `<link rel="alternate" type="text/html" href="${e(x.link)}"/>` +
  `<category term="${x.category}"/>` +
  `<content type="text">${e(x.content)}</content>` +
  '</entry>\n';

export const renderAtom = (status: PublicStatus): string => {
  const { page } = status;
  const entries = [
    ...[...status.active, ...status.past].flatMap((i) => incidentEntries(i, page.links.page)),
    ...status.maintenances.map((m) => maintenanceEntry(m, page.links.page)),
  ]
    .sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id))
    .slice(0, MAX_FEED_ENTRIES);
  const updated = [page.updated_at, ...entries.map((x) => x.updated)]
    .filter((s) => s !== '')
    .map(rfc3339)
    .sort()
    .at(-1);
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">\n' +
    `<id>${e(urn(page.id))}</id>` +
    `<title type="text">${e(`${page.title}: incidents and maintenance`)}</title>` +
    (page.description === null || page.description === ''
      ? ''
      : `<subtitle type="text">${e(page.description)}</subtitle>`) +
    `<updated>${e(updated ?? rfc3339(status.generated_at))}</updated>` +
    `<link rel="self" type="application/atom+xml" href="${e(page.links.feed)}"/>` +
    `<link rel="alternate" type="text/html" href="${e(page.links.page)}"/>` +
    `<author><name>${e(page.title)}</name></author>` +
    '<generator>watchlog</generator>\n' +
    entries.map(entryXml).join('') +
    '</feed>\n'
  );
};
