import test from 'ava';
import {
  BADGE_COLORS,
  certificateBadge,
  pageStatusBadge,
  renderBadge,
  responseBadge,
  statusBadge,
  textWidth,
  uptimeBadge,
} from '../../../src/http/public/badge.ts';
import { child, findAll, parseXml, type XmlElement } from './xml.ts';

/** The rectangles: the clip path's, the label's, the message's, the gloss. */
const messageColor = (svg: XmlElement) => findAll(svg, 'rect')[2]?.attrs.fill;
const texts = (svg: XmlElement) => findAll(svg, 'text').map((t) => t.text);

test('a badge is well-formed SVG, named by its title and aria-label', (t) => {
  const svg = parseXml(renderBadge({ label: 'status', message: 'up', color: 'brightgreen' }));
  t.is(svg.name, 'svg');
  t.is(svg.attrs.xmlns, 'http://www.w3.org/2000/svg');
  t.is(svg.attrs.role, 'img');
  t.is(svg.attrs['aria-label'], 'status: up');
  t.is(child(svg, 'title')?.text, 'status: up');
  t.deepEqual(texts(svg), ['status', 'status', 'up', 'up']);
  // The shadow text is hidden from assistive technology; the title names the image.
  t.is(findAll(svg, 'text')[0]?.attrs['aria-hidden'], 'true');
  const width = Number(svg.attrs.width);
  const [left, right] = findAll(svg, 'rect').slice(1, 3);
  t.is(Number(left?.attrs.width) + Number(right?.attrs.width), width);
  t.is(messageColor(svg), BADGE_COLORS.brightgreen);
});

test('text width is estimated from Verdana’s widths, as shields.io does', (t) => {
  // anafanafo's Verdana 11px: s 5.73, t 4.33, a 6.61, u 6.97.
  t.is(Math.round(textWidth('status')), 34);
  t.true(textWidth('WWW') > textWidth('iii') * 2);
  t.true(textWidth('監視') > textWidth('ab'));
  const narrow = parseXml(renderBadge({ label: 'a', message: 'b', color: 'blue' }));
  const wide = parseXml(renderBadge({ label: 'a much longer label', message: 'b', color: 'blue' }));
  t.true(Number(wide.attrs.width) > Number(narrow.attrs.width) + 80);
});

test('a hostile label is text, and an endless one is cut', (t) => {
  const svg = renderBadge({ label: '<script>alert(1)</script>&"\'', message: 'x\u0000y', color: 'red' });
  t.false(svg.includes('<script'));
  const parsed = parseXml(svg);
  t.is(child(parsed, 'title')?.text, '<script>alert(1)</script>&"\': xy');
  const long = parseXml(renderBadge({ label: 'x'.repeat(500), message: 'y', color: 'red' }));
  t.is(texts(long)[0]?.length, 100);
  t.true(texts(long)[0]?.endsWith('…'));
});

test('status, uptime, response and certificate badges say their figure and colour it', (t) => {
  const cases: [string, string, keyof typeof BADGE_COLORS][] = [
    [statusBadge('operational'), 'status: up', 'brightgreen'],
    [statusBadge('down', 'API'), 'API: down', 'red'],
    [statusBadge('maintenance'), 'status: maintenance', 'blue'],
    [statusBadge('pending'), 'status: pending', 'lightgrey'],
    [pageStatusBadge('partial_outage'), 'status: partial outage', 'orange'],
    [uptimeBadge(1, 30), 'uptime 30d: 100%', 'brightgreen'],
    [uptimeBadge(0.99999, 7), 'uptime 7d: 99.99%', 'brightgreen'],
    [uptimeBadge(0.985, 90), 'uptime 90d: 98.50%', 'yellowgreen'],
    [uptimeBadge(0.5, 1, 'uptime'), 'uptime: 50.00%', 'red'],
    [uptimeBadge(null, 30), 'uptime 30d: no data', 'lightgrey'],
    [responseBadge(87.4), 'response: 87 ms', 'brightgreen'],
    [responseBadge(2400), 'response: 2400 ms', 'orange'],
    [responseBadge(null), 'response: no data', 'lightgrey'],
    [certificateBadge(90), 'certificate: 90 days left', 'brightgreen'],
    [certificateBadge(1), 'certificate: 1 day left', 'red'],
    [certificateBadge(10), 'certificate: 10 days left', 'orange'],
    [certificateBadge(-3), 'certificate: expired', 'red'],
    [certificateBadge(null), 'certificate: no data', 'lightgrey'],
  ];
  for (const [svg, title, color] of cases) {
    const parsed = parseXml(svg);
    t.is(child(parsed, 'title')?.text, title);
    t.is(messageColor(parsed), BADGE_COLORS[color], title);
  }
});
