import test from 'ava';
import { Script } from 'node:vm';
import { isLeft } from 'fp-ts/lib/Either.js';
import { jsonSchemaOf } from '../../../src/http/openapi/schema.ts';
import { STATUS_ASSETS, STATUS_CSS, STATUS_JS } from '../../../src/http/public/assets.ts';
import { renderAtom } from '../../../src/http/public/atom.ts';
import { historyOf } from '../../../src/http/public/history-model.ts';
import { etagOf, renderHistoryPage, renderStatusPage } from '../../../src/http/public/html.ts';
import { type PublicStatus, publicStatusOf, versionOf } from '../../../src/http/public/status-model.ts';
import { PublicSummary, summaryOf } from '../../../src/http/public/summary.ts';
import { escapeMarkup } from '../../../src/http/public/text.ts';
import { ids, incident, input, maintenance, monitors, NOW, page } from './fixtures.ts';
import { child, findAll, parseXml } from './xml.ts';

const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)> & 'quoted' "double"`;

const busy = () =>
  publicStatusOf(
    input({
      page: page({ title: `Acme ${HOSTILE}`, description: HOSTILE }),
      monitors: monitors().map((m) => (m.id === ids.api ? { ...m, name: `API ${HOSTILE}`, status: 'DOWN' } : m)),
      incidents: [
        incident('1c000000-0000-4000-8000-000000000001', { title: `Outage ${HOSTILE}`, impact: 'major' }),
        incident('1c000000-0000-4000-8000-000000000002', {
          created_at: '2026-09-05T10:00:00.000Z',
          status: 'resolved',
          resolved_at: '2026-09-05T12:00:00.000Z',
          monitor_ids: [],
        }),
      ],
      maintenances: [
        maintenance('3a000000-0000-4000-8000-000000000001', { title: `Upgrade ${HOSTILE}`, description: HOSTILE }),
      ],
    }),
  );

test('escapeMarkup: markup and quotes become entities; characters XML forbids are dropped', (t) => {
  t.is(escapeMarkup(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  t.is(escapeMarkup('a\u0000b\u001Fc\uFFFEd\uD800e\tf\n'), 'abcde\tf\n');
  t.is(escapeMarkup('emoji 😀 ok'), 'emoji 😀 ok');
});

test('the page: a hostile title, name or message is text, never markup', (t) => {
  const html = renderStatusPage(busy());
  t.false(html.includes('<script>alert'));
  t.false(html.includes('<img'));
  t.true(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  // The only script is the live one, by URL; no inline handlers or styles.
  t.deepEqual(html.match(/<script[^>]*>/g), [`<script src="${STATUS_JS.path}" defer>`]);
  // Text holds no raw <, so every < opens a real tag; its quoted values are set aside.
  const attributes = [...html.matchAll(/<[a-zA-Z][^>]*>/g)].flatMap((m) =>
    [...m[0].replace(/"[^"]*"/g, '""').matchAll(/\s([a-zA-Z:-]+)=/g)].map((a) => a[1]!.toLowerCase()),
  );
  t.true(attributes.includes('class'));
  t.false(attributes.includes('style'));
  t.deepEqual(
    attributes.filter((a) => a.startsWith('on')),
    [],
  );
  t.notRegex(html, /<style/);
});

test('the page: what a reader, a phone and the live script need', (t) => {
  const s = busy();
  const html = renderStatusPage(s);
  t.regex(html, /^<!doctype html>\n<html lang="en">/);
  t.true(html.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'));
  t.true(html.includes('<meta name="color-scheme" content="light dark">'));
  t.true(html.includes(`<link rel="stylesheet" href="${STATUS_CSS.path}">`));
  t.true(html.includes(`<main id="content" class="wrap" tabindex="-1" data-version="${versionOf(s)}">`));
  t.is(etagOf(versionOf(s)), `"${versionOf(s)}"`);
  // A route's own version, made safe for an ETag the same way in both places.
  const own = renderStatusPage(s, 'C:12/P:12 "x"');
  t.true(own.includes('data-version="C:12/P:12__x_"'));
  t.is(etagOf('C:12/P:12 "x"'), '"C:12/P:12__x_"');
  t.true(html.includes('role="status" aria-live="polite"'));
  t.true(html.includes('data-banner="partial_outage">Partial outage</h2>'));
  for (const landmark of ['<header', '<main', '<footer']) t.true(html.includes(landmark), landmark);
  // One h1; headings never skip a level downwards.
  const levels = [...html.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
  t.is(levels.filter((l) => l === 1).length, 1);
  for (let i = 1; i < levels.length; i++)
    t.true(levels[i]! <= levels[i - 1]! + 1, `h${levels[i - 1]} then h${levels[i]}`);
  // Every day has its text, not only a colour.
  const days = [
    ...html.matchAll(/<li class="day day--(\w+)[^"]*" title="([^"]+)"><span class="vh">([^<]+)<\/span><\/li>/g),
  ];
  t.is(days.length, 3 * 90);
  t.true(days.every((d) => d[2] === d[3]));
  t.true(days.some((d) => /^10 Sep 2026: 100% uptime; incident: Outage/.test(d[2]!)));
  t.true(days.some((d) => d[1] === 'none' && d[2]!.endsWith('no checks')));
  t.true(html.includes('Under way'));
  t.true(html.includes('href="https://status.acme.example/status/acme/history"'));
});

test('the page without incidents, maintenance or groups still says so in words', (t) => {
  const html = renderStatusPage(publicStatusOf(input({ page: page({ groups: [] }) })));
  t.true(html.includes('All systems operational'));
  t.true(html.includes('This page lists no services yet.'));
  t.true(html.includes('No incidents in the last 14 days.'));
  t.false(html.includes('Active incidents'));
});

test('the history page: incidents newest first, links to the pages around it', (t) => {
  const all = Array.from({ length: 12 }, (_, n) =>
    incident(`1c00-${String(n).padStart(2, '0')}`, {
      title: `Incident number ${n}`,
      created_at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 86_400_000).toISOString(),
    }),
  );
  const base = { page: page(), monitors: monitors(), incidents: all, limit: 5, now: NOW, baseUrl: null };
  const second = renderHistoryPage(historyOf({ ...base, pageNumber: 2 }));
  t.true(second.indexOf('Incident number 6') < second.indexOf('Incident number 5'));
  t.false(second.includes('Incident number 7<'));
  t.true(second.includes('<a rel="prev" href="/status/acme/history?page=1">'));
  t.true(second.includes('<a rel="next" href="/status/acme/history?page=3">'));
  t.true(second.includes('Page 2 of 3'));
  t.false(second.includes('<script'));
  t.false(second.includes('data-version'));
  t.true(renderHistoryPage(historyOf({ ...base, incidents: [], pageNumber: 1 })).includes('No incidents so far.'));
});

test('summary.json decodes with its own codec, and says what Statuspage would', (t) => {
  const summary = summaryOf(busy());
  const decoded = PublicSummary.decode(JSON.parse(JSON.stringify(summary)));
  if (isLeft(decoded)) return t.fail(JSON.stringify(decoded.left.slice(0, 3)));
  t.deepEqual(summary.status, { indicator: 'major', description: 'Partial System Outage' });
  t.deepEqual(
    summary.components.map((c) => [c.name.slice(0, 8), c.status, c.group, c.position]),
    [
      ['Public', 'major_outage', true, 1],
      ['API <scr', 'major_outage', false, 2],
      ['Website', 'operational', false, 3],
      ['Data', 'under_maintenance', true, 4],
      ['Database', 'under_maintenance', false, 5],
    ],
  );
  const group = summary.components[0]!;
  t.deepEqual(group.components, [ids.api, ids.web]);
  t.is(summary.components[1]?.group_id, group.id);
  t.is(summary.incidents.length, 1);
  t.like(summary.incidents[0], { status: 'investigating', impact: 'major', resolved_at: null });
  t.deepEqual(
    summary.incidents[0]?.components.map((c) => c.id),
    [ids.api],
  );
  t.is(summary.incidents[0]?.incident_updates[0]?.body, 'We are looking into it.');
  t.like(summary.scheduled_maintenances[0], {
    status: 'in_progress',
    impact: 'maintenance',
    scheduled_for: '2026-09-10T11:00:00.000Z',
    scheduled_until: '2026-09-10T13:00:00.000Z',
  });
  t.like(summary.page, { url: 'https://status.acme.example/status/acme', time_zone: 'Etc/UTC' });
  // Every banner maps to one of Statuspage's indicators.
  const indicators = new Map<PublicStatus, PublicSummary['status']['indicator']>([
    [publicStatusOf(input()), 'none'],
    [publicStatusOf(input({ maintenances: [maintenance('3a00-01', { monitor_ids: 'all' })] })), 'maintenance'],
    [publicStatusOf(input({ incidents: [incident('1c00-01', { impact: 'minor' })] })), 'minor'],
    [publicStatusOf(input({ incidents: [incident('1c00-01', { impact: 'critical' })] })), 'critical'],
  ]);
  for (const [s, indicator] of indicators) t.is(summaryOf(s).status.indicator, indicator);
  t.true(isLeft(PublicSummary.decode({ ...summary, status: { indicator: 'fine', description: '' } })));
  // The API's description can be generated from it.
  t.like(jsonSchemaOf(PublicSummary), { type: 'object', required: ['page', 'components', 'incidents'] });
});

test('the Atom feed is well-formed Atom 1.0: ids, titles, updated, links, one entry per update', (t) => {
  const s = busy();
  const feed = parseXml(renderAtom(s));
  t.is(feed.name, 'feed');
  t.is(feed.attrs.xmlns, 'http://www.w3.org/2005/Atom');
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
  t.is(child(feed, 'id')?.text, `urn:uuid:${ids.page}`);
  t.regex(child(feed, 'updated')?.text ?? '', rfc3339);
  t.true(child(feed, 'title')?.text.startsWith(`Acme ${HOSTILE}`));
  const links = findAll(feed, 'link').filter((l) => feed.children.includes(l));
  t.deepEqual(
    links.map((l) => [l.attrs.rel, l.attrs.href]),
    [
      ['self', 'https://status.acme.example/status/acme/feed.atom'],
      ['alternate', 'https://status.acme.example/status/acme'],
    ],
  );
  t.truthy(child(child(feed, 'author')!, 'name')?.text);
  const entries = findAll(feed, 'entry');
  t.is(entries.length, 3);
  const entryIds = entries.map((e) => child(e, 'id')?.text ?? '');
  t.is(new Set(entryIds).size, entryIds.length);
  for (const entry of entries) {
    t.regex(child(entry, 'id')?.text ?? '', /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    t.regex(child(entry, 'updated')?.text ?? '', rfc3339);
    t.truthy(child(entry, 'title')?.text);
    t.regex(child(entry, 'link')?.attrs.href ?? '', /^https:\/\/status\.acme\.example\/status\/acme#/);
    t.is(child(entry, 'content')?.attrs.type, 'text');
  }
  // Newest first; the hostile text arrives as text.
  const updated = entries.map((e) => child(e, 'updated')?.text ?? '');
  t.deepEqual(updated, [...updated].sort().reverse());
  t.true(entries.some((e) => child(e, 'title')?.text === `Outage ${HOSTILE}: Investigating`));
  t.true(entries.some((e) => child(e, 'content')?.text.includes(`\n\n${HOSTILE}`)));
  // The same data, the same ids: a reader never sees an update twice.
  t.deepEqual(
    findAll(parseXml(renderAtom(busy())), 'id').map((e) => e.text),
    findAll(feed, 'id').map((e) => e.text),
  );
});

test('the Atom feed without a base URL or anything to tell is still valid', (t) => {
  const feed = parseXml(renderAtom(publicStatusOf(input({ baseUrl: null, page: page({ description: null }) }))));
  t.is(findAll(feed, 'entry').length, 0);
  t.is(child(feed, 'updated')?.text, '2026-09-09T08:00:00.000Z');
  t.is(child(feed, 'subtitle'), undefined);
  t.is(findAll(feed, 'link')[0]?.attrs.href, '/status/acme/feed.atom');
});

test('assets: hashed names, the live script parses and uses no eval', (t) => {
  t.regex(STATUS_CSS.path, /^\/status-assets\/status\.[0-9a-f]{16}\.css$/);
  t.regex(STATUS_JS.path, /^\/status-assets\/status\.[0-9a-f]{16}\.js$/);
  t.is(STATUS_ASSETS.get(STATUS_JS.path), STATUS_JS);
  t.notThrows(() => new Script(STATUS_JS.body));
  t.notRegex(STATUS_JS.body, /\beval\b|new Function|innerHTML|setTimeout\(['"`]/);
  t.regex(STATUS_CSS.body, /prefers-color-scheme: dark/);
  t.regex(STATUS_CSS.body, /:focus-visible/);
});

test('the subscription form: only when asked for, outside <main>, labelled, posting to the page’s own path', (t) => {
  const status = busy();
  t.false(renderStatusPage(status).includes('<form'));
  const html = renderStatusPage(status, undefined, { subscribe: true });
  const main = html.indexOf('</main>');
  const form = html.indexOf('<form');
  t.true(form > main, 'the live script swaps <main>: a half-typed address stays');
  t.regex(html, /<form class="subscribe__form" method="post" action="\/status\/acme\/subscribe">/);
  t.regex(html, /<label for="subscribe-email">E-mail address<\/label>/);
  t.regex(html, /<input id="subscribe-email" name="email" type="email" autocomplete="email" required /);
  t.false(/style=/.test(html), 'no style attribute, which the CSP refuses');
});
