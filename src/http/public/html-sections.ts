import type {
  PublicDay,
  PublicGroup,
  PublicIncident,
  PublicMaintenance,
  PublicMonitor,
  PublicMonitorRef,
} from './status-model.ts';
import {
  escapeMarkup as e,
  humanDay,
  humanTime,
  IMPACT_TEXT,
  INCIDENT_STATUS_TEXT,
  percent,
  STATE_TEXT,
} from './text.ts';

/** The parts of the public pages, each a pure function of public values. Fragments are joined
 *  without whitespace between list items: 90 days a monitor make whitespace a real share of
 *  the page. Classes follow the stylesheet (assets-css.ts); no `style` attribute anywhere,
 *  which the CSP would refuse. */

/** `<time>` in UTC; the live script rewrites its text in the reader's zone. */
export const time = (iso: string): string => `<time datetime="${e(iso)}">${e(humanTime(iso))}</time>`;

const dayLabel = (d: PublicDay): string => {
  const figure = d.uptime === null ? 'no checks' : `${percent(d.uptime)} uptime`;
  const incidents =
    d.incidents.length === 0
      ? ''
      : `; ${d.incidents.length === 1 ? 'incident' : `${d.incidents.length} incidents`}: ${d.incidents
          .map((i) => i.title)
          .join(', ')}`;
  return `${humanDay(d.date)}: ${figure}${incidents}`;
};

const day = (d: PublicDay): string => {
  const label = e(dayLabel(d));
  const marked = d.incidents.length > 0 ? ' day--incident' : '';
  return `<li class="day day--${d.level}${marked}" title="${label}"><span class="vh">${label}</span></li>`;
};

const monitor = (m: PublicMonitor): string => {
  const count = m.days.length;
  const since =
    m.since === null || m.state === 'maintenance' ? '' : `<span class="since"> since ${time(m.since)}</span>`;
  const barsLabel = e(`${m.name}: uptime per day, last ${count} ${count === 1 ? 'day' : 'days'}`);
  const far =
    count > 30
      ? `<span class="legend__far">${count} days ago</span><span class="legend__near">30 days ago</span>`
      : `<span>${count === 1 ? 'Today' : `${count} days ago`}</span>`;
  return (
    `<li class="monitor"><div class="monitor__head">` +
    `<h4 class="monitor__name">${e(m.name)}</h4>` +
    `<p class="state state--${m.state}"><span class="state__dot" aria-hidden="true"></span>` +
    `${STATE_TEXT[m.state]}${since}</p></div>` +
    `<ol class="bars${count > 30 ? ' bars--long' : ''}" aria-label="${barsLabel}">${m.days.map(day).join('')}</ol>` +
    `<p class="legend">${far}<span class="legend__uptime">${e(percent(m.uptime))} uptime</span>` +
    `<span>Today</span></p></li>`
  );
};

export const groupsSection = (groups: readonly PublicGroup[]): string => {
  const body =
    groups.length === 0
      ? '<p class="empty">This page lists no services yet.</p>'
      : groups
          .map(
            (g, gi) =>
              `<section class="group" aria-labelledby="g-${gi}"><h3 id="g-${gi}">${e(g.name)}</h3>` +
              `<ul class="monitors">${g.monitors.map(monitor).join('')}</ul></section>`,
          )
          .join('');
  return `<section class="services" aria-labelledby="services-h"><h2 id="services-h">Services</h2>${body}</section>`;
};

const updates = (incident: PublicIncident): string =>
  `<ol class="updates">${incident.updates
    .map(
      (u) =>
        `<li class="update"><p class="update__head"><strong>${INCIDENT_STATUS_TEXT[u.status]}</strong> · ` +
        `${time(u.at)}</p><p class="update__message">${e(u.message)}</p></li>`,
    )
    .join('')}</ol>`;

const affects = (monitors: readonly PublicMonitorRef[] | 'all'): string =>
  monitors === 'all' || monitors.length === 0 ? 'all services' : monitors.map((m) => e(m.name)).join(', ');

/** One incident: its updates shown (open ones), or folded away (`folded`: past ones). */
export const incidentArticle = (incident: PublicIncident, heading: 'h2' | 'h3', folded: boolean): string => {
  const id = `incident-${e(incident.id)}`;
  const when =
    incident.resolved_at === null
      ? `Since ${time(incident.started_at)}`
      : `${time(incident.started_at)} to ${time(incident.resolved_at)}`;
  const meta =
    `<p class="incident__meta"><span class="impact impact--${incident.impact}">` +
    `${IMPACT_TEXT[incident.impact]} impact</span> · ${when} · Affects ${affects(incident.monitors)}</p>`;
  const count = incident.updates.length;
  const body = folded
    ? `<details><summary>${count} ${count === 1 ? 'update' : 'updates'}</summary>${updates(incident)}</details>`
    : updates(incident);
  return (
    `<article class="incident incident--${incident.impact}" id="${id}" aria-labelledby="${id}-h">` +
    `<${heading} id="${id}-h">${e(incident.title)}</${heading}>${meta}${body}</article>`
  );
};

export const activeSection = (incidents: readonly PublicIncident[]): string =>
  incidents.length === 0
    ? ''
    : `<section class="active" aria-labelledby="active-h"><h2 id="active-h">Active incidents</h2>` +
      `${incidents.map((i) => incidentArticle(i, 'h3', false)).join('')}</section>`;

const maintenanceArticle = (m: PublicMaintenance): string =>
  `<article class="maintenance maintenance--${m.state}" aria-labelledby="mt-${e(m.id)}">` +
  `<h3 id="mt-${e(m.id)}">${e(m.title)}</h3>` +
  `<p class="maintenance__when"><strong>${m.state === 'active' ? 'Under way' : 'Scheduled'}</strong> · ` +
  `${time(m.starts_at)} to ${time(m.ends_at)}</p>` +
  (m.description === null || m.description === '' ? '' : `<p class="maintenance__text">${e(m.description)}</p>`) +
  `<p class="maintenance__affects">Affects ${affects(m.monitors)}</p></article>`;

export const maintenanceSection = (maintenances: readonly PublicMaintenance[]): string =>
  maintenances.length === 0
    ? ''
    : `<section class="maintenances" aria-labelledby="maint-h"><h2 id="maint-h">Maintenance</h2>` +
      `${maintenances.map(maintenanceArticle).join('')}</section>`;

export const pastSection = (incidents: readonly PublicIncident[], days: number, history: string): string =>
  `<section class="past" aria-labelledby="past-h"><h2 id="past-h">Past incidents</h2>` +
  (incidents.length === 0
    ? `<p class="empty">No incidents in the last ${days} days.</p>`
    : incidents.map((i) => incidentArticle(i, 'h3', true)).join('')) +
  `<p class="more"><a href="${e(history)}">Incident history</a></p></section>`;

/** Where the page's subscribe form posts: a path of its own origin, whichever host serves the
 *  page (its custom domain too), since the CSP lets a form post nowhere else. */
export const subscribePath = (slug: string): string => `/status/${encodeURIComponent(slug)}/subscribe`;

/** The e-mail subscription form: a plain form (it works without scripts), a visible label, the
 *  browser's own address check, and what happens next said before it is sent. */
export const subscribeSection = (slug: string): string =>
  '<aside class="wrap subscribe" aria-labelledby="subscribe-h"><h2 id="subscribe-h">Get updates by e-mail</h2>' +
  `<form class="subscribe__form" method="post" action="${e(subscribePath(slug))}">` +
  '<label for="subscribe-email">E-mail address</label>' +
  '<input id="subscribe-email" name="email" type="email" autocomplete="email" required maxlength="254" ' +
  'aria-describedby="subscribe-note">' +
  '<button type="submit">Subscribe</button></form>' +
  '<p class="subscribe__note" id="subscribe-note">New incidents, their updates and maintenance. We first send ' +
  'a message to confirm the address; every message has a link to unsubscribe.</p></aside>';
