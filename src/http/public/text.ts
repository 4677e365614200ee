/** Escaping and wording shared by the public renderers (docs/status-pages.md#public-answers).
 *  Every text a team or a monitor's name brings in goes through `escapeMarkup` on its way into
 *  HTML, Atom or SVG: one function, so no renderer can forget an attribute's quotes. */

/** Whether XML 1.0 allows the code point: not the C0 controls other than tab and newlines, not
 *  a lone surrogate, not U+FFFE or U+FFFF. One of them makes a whole feed or badge unreadable,
 *  so they are dropped. */
const xmlChar = (code: number): boolean =>
  code === 0x9 ||
  code === 0xa ||
  code === 0xd ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  code >= 0x10000;

const xmlText = (text: string): string => {
  // Nearly every text is clean: only a text with a code unit to drop is rebuilt.
  let clean = true;
  for (let i = 0; i < text.length && clean; i++) {
    const c = text.charCodeAt(i);
    clean = c >= 0x20 ? c < 0xd800 || (c > 0xdfff && c < 0xfffe) : c === 0x9 || c === 0xa || c === 0xd;
  }
  if (clean) return text;
  let out = '';
  for (const ch of text) if (xmlChar(ch.codePointAt(0) ?? 0)) out += ch;
  return out;
};

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in HTML and XML text and in quoted attribute values alike. */
export const escapeMarkup = (text: string): string => xmlText(text).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number) => String(n).padStart(2, '0');

/** `1 Sep 2026, 10:00 UTC`: what a reader sees without the script (which shows local time). */
export const humanTime = (iso: string): string => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return `${day}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
};

/** `1 Sep 2026` for a `YYYY-MM-DD` day. */
export const humanDay = (day: string): string => {
  const [y, m, d] = day.split('-').map(Number);
  return `${d} ${MONTHS[(m ?? 1) - 1]} ${y}`;
};

/** A share as a percentage that never rounds a failure away: 0.99999 is 99.99%, not 100%. */
export const percent = (share: number | null): string => {
  if (share === null) return 'no data';
  if (share >= 1) return '100%';
  const floored = Math.floor(share * 10_000) / 100;
  return `${floored.toFixed(2)}%`;
};

/** The banner's words on the page, and the page's summary in summary.json (Statuspage's). */
export const BANNER_TEXT = {
  operational: 'All systems operational',
  maintenance: 'Under maintenance',
  degraded: 'Degraded service',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
} as const;

export const STATE_TEXT = {
  operational: 'Operational',
  down: 'Down',
  maintenance: 'Under maintenance',
  pending: 'No data',
} as const;

export const INCIDENT_STATUS_TEXT = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
} as const;

export const IMPACT_TEXT = { none: 'None', minor: 'Minor', major: 'Major', critical: 'Critical' } as const;
