import type { BannerState, PublicMonitorState } from './status-model.ts';
import { BANNER_TEXT, escapeMarkup as e, percent } from './text.ts';

/** Badges as SVG in shields.io's flat style, for READMEs and dashboards elsewhere. Each takes
 *  only its own figure, nothing of the monitor. The text's width is estimated as shields.io
 *  does, from Verdana's advance widths at 11 px (the font the badge names first); the text is
 *  drawn at 10x and scaled down, with `textLength`, so a fallback font keeps the same width. */

/** Verdana's advance widths in font units (2048 an em) for U+0020 to U+007E. */
const ASCII_UNITS = [
  720, 817, 969, 1716, 1302, 2210, 1486, 551, 909, 909, 1302, 1716, 745, 940, 745, 1233, 1302, 1302, 1302, 1302, 1302,
  1302, 1302, 1302, 1302, 1302, 909, 909, 1716, 1716, 1716, 1112, 2048, 1401, 1405, 1430, 1577, 1294, 1178, 1582, 1540,
  861, 929, 1422, 1145, 1751, 1532, 1618, 1235, 1618, 1426, 1401, 1237, 1516, 1401, 2025, 1403, 1243, 1403, 909, 1233,
  909, 1716, 1302, 1302, 1229, 1276, 1067, 1276, 1220, 720, 1276, 1296, 562, 676, 1189, 562, 1992, 1296, 1243, 1276,
  1276, 874, 1067, 807, 1296, 1189, 1659, 1189, 1189, 1057, 1302, 909, 1302, 1716,
];
const OTHER_UNITS = 1300;
/** CJK, Hangul, full-width forms and emoji take a whole em. */
const WIDE = new RegExp(
  '[\\u1100-\\u115F\\u2E80-\\uA4CF\\uAC00-\\uD7A3\\uF900-\\uFAFF\\uFE30-\\uFE4F\\uFF00-\\uFF60\\uFFE0-\\uFFE6]' +
    '|\\p{Extended_Pictographic}',
  'u',
);

/** The width in pixels of `text` in 11 px Verdana. */
export const textWidth = (text: string): number => {
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    units += code >= 32 && code <= 126 ? (ASCII_UNITS[code - 32] ?? OTHER_UNITS) : WIDE.test(ch) ? 2048 : OTHER_UNITS;
  }
  return (units * 11) / 2048;
};

/** shields.io's named colours. */
export const BADGE_COLORS = {
  brightgreen: '#4c1',
  green: '#97ca00',
  yellowgreen: '#a4a61d',
  yellow: '#dfb317',
  orange: '#fe7d37',
  red: '#e05d44',
  blue: '#007ec6',
  lightgrey: '#9f9f9f',
} as const;
export type BadgeColor = keyof typeof BADGE_COLORS;

export interface BadgeInput {
  label: string;
  message: string;
  color: BadgeColor;
}

const MAX_TEXT = 100;
const clip = (text: string) => {
  const chars = [...text];
  return chars.length <= MAX_TEXT ? text : `${chars.slice(0, MAX_TEXT - 1).join('')}…`;
};

const HORIZONTAL_PADDING = 5;

/** One badge: a grey label and a coloured message, named by `<title>` and `aria-label`. */
export const renderBadge = (input: BadgeInput): string => {
  const label = clip(input.label);
  const message = clip(input.message);
  const labelText = Math.round(textWidth(label) * 10);
  const messageText = Math.round(textWidth(message) * 10);
  const left = Math.round(labelText / 10) + 2 * HORIZONTAL_PADDING;
  const right = Math.round(messageText / 10) + 2 * HORIZONTAL_PADDING;
  const width = left + right;
  const name = e(`${label}: ${message}`);
  const text = (value: string, x: number, length: number) =>
    `<text aria-hidden="true" x="${x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" ` +
    `textLength="${length}">${e(value)}</text>` +
    `<text x="${x}" y="140" transform="scale(.1)" fill="#fff" textLength="${length}">${e(value)}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${name}">` +
    `<title>${name}</title>` +
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>' +
    '<stop offset="1" stop-opacity=".1"/></linearGradient>' +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/>` +
    `<rect x="${left}" width="${right}" height="20" fill="${BADGE_COLORS[input.color]}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" ' +
    'text-rendering="geometricPrecision" font-size="110">' +
    text(label, left * 5, labelText) +
    text(message, left * 10 + right * 5, messageText) +
    '</g></svg>\n'
  );
};

const STATE_BADGE: Record<PublicMonitorState, { message: string; color: BadgeColor }> = {
  operational: { message: 'up', color: 'brightgreen' },
  down: { message: 'down', color: 'red' },
  maintenance: { message: 'maintenance', color: 'blue' },
  pending: { message: 'pending', color: 'lightgrey' },
};

/** A monitor's state. */
export const statusBadge = (state: PublicMonitorState, label = 'status'): string =>
  renderBadge({ label, ...STATE_BADGE[state] });

const BANNER_COLOR: Record<BannerState, BadgeColor> = {
  operational: 'brightgreen',
  maintenance: 'blue',
  degraded: 'yellow',
  partial_outage: 'orange',
  major_outage: 'red',
};

/** A whole page's state, in the banner's words. */
export const pageStatusBadge = (banner: BannerState, label = 'status'): string =>
  renderBadge({ label, message: BANNER_TEXT[banner].toLowerCase(), color: BANNER_COLOR[banner] });

/** The share of OK checks over `days` (figuresOver in status-model.ts). */
export const uptimeBadge = (uptime: number | null, days: number, label = `uptime ${days}d`): string => {
  if (uptime === null) return renderBadge({ label, message: 'no data', color: 'lightgrey' });
  const color: BadgeColor =
    uptime >= 0.999
      ? 'brightgreen'
      : uptime >= 0.99
        ? 'green'
        : uptime >= 0.97
          ? 'yellowgreen'
          : uptime >= 0.95
            ? 'yellow'
            : uptime >= 0.9
              ? 'orange'
              : 'red';
  return renderBadge({ label, message: percent(uptime), color });
};

/** The mean response time of OK checks, in milliseconds. */
export const responseBadge = (ms: number | null, label = 'response'): string => {
  if (ms === null) return renderBadge({ label, message: 'no data', color: 'lightgrey' });
  const rounded = Math.max(0, Math.round(ms));
  const color: BadgeColor =
    rounded < 300
      ? 'brightgreen'
      : rounded < 800
        ? 'green'
        : rounded < 1500
          ? 'yellow'
          : rounded < 3000
            ? 'orange'
            : 'red';
  return renderBadge({ label, message: `${rounded} ms`, color });
};

/** Whole days left on the certificate the last check saw (`daysLeft` in the domain). */
export const certificateBadge = (daysLeft: number | null, label = 'certificate'): string => {
  if (daysLeft === null) return renderBadge({ label, message: 'no data', color: 'lightgrey' });
  if (daysLeft < 0) return renderBadge({ label, message: 'expired', color: 'red' });
  const color: BadgeColor = daysLeft < 7 ? 'red' : daysLeft < 14 ? 'orange' : daysLeft < 30 ? 'yellow' : 'brightgreen';
  return renderBadge({ label, message: `${daysLeft} ${daysLeft === 1 ? 'day' : 'days'} left`, color });
};
