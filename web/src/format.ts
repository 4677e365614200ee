/** Display helpers: one place decides how times, numbers and durations read. */

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export const formatTime = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : timeFormat.format(d);
};

// Building an Intl formatter costs far more than using one: a page of 100 rows formats hundreds
// of numbers, so each precision gets one formatter for the page's life.
const numberFormats = new Map<number, Intl.NumberFormat>();
const numberFormat = (digits: number): Intl.NumberFormat => {
  let f = numberFormats.get(digits);
  if (f === undefined) {
    f = new Intl.NumberFormat(undefined, { maximumFractionDigits: digits });
    numberFormats.set(digits, f);
  }
  return f;
};

export const formatNumber = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined || Number.isNaN(n) ? '—' : numberFormat(digits).format(n);

export const formatMs = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : `${formatNumber(n, n < 10 ? 1 : 0)} ms`;

export const formatPercent = (ratio: number | null | undefined): string =>
  ratio === null || ratio === undefined ? '—' : `${formatNumber(ratio * 100, 2)} %`;

export const formatDuration = (seconds: number): string => {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
};

/** A relative time: "12 s ago", "3 min ago". */
export const ago = (iso: string | null | undefined, now = Date.now()): string => {
  if (iso === null || iso === undefined) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
};
