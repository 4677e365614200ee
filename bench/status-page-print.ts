import { INTERVAL_S } from './monitors.ts';
import type { Freshness } from './status-page-fresh.ts';
import type { Paced } from './status-page-load.ts';
import {
  type Compared,
  type Measured,
  type Slice,
  type StatusPageReport,
  TAB_POLL_MS,
  TARGETS,
} from './status-page.ts';
import { median, verdict } from './support.ts';

/** The status page section's report, as `npm run bench status-page` prints it. */

const int = (n: number) => Math.round(n).toLocaleString('en');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;
/** A share of a core, as a percentage. */
const share = (x: number) => `${Math.max(0, Math.round(x * 100))} %`;

const pair = (name: string, c: Compared<Measured>, background: number): string[] => {
  const line = (who: string, m: Measured, cpu: string) =>
    `    ${who.padEnd(9)} ${int(m.requestsPerSec).padStart(7)} req/s (slices ${m.slices.map(int).join(', ')})   ` +
    `p50 ${m.p50} ms   p99 ${m.p99} ms   CPU ${cpu} an answer   others ${m.others.map(share).join(', ')}` +
    (m.unexpected + m.errors > 0 ? `   ${m.unexpected} unexpected answers, ${m.errors} errors` : '');
  // watchlog's background (monitors, projections) is spread over its answers: shown apart.
  const own = (m: Measured) => m.cpuPerAnswerUs - (background * 1e6) / m.requestsPerSec;
  return [
    `  ${name}: watchlog ${pct(c.watchlog.requestsPerSec, c.baseline.requestsPerSec)} of the baseline's req/s, ` +
      `its CPU an answer ×${(own(c.watchlog) / c.baseline.cpuPerAnswerUs).toFixed(2)} the baseline's`,
    line(
      'watchlog',
      c.watchlog,
      `${int(c.watchlog.cpuPerAnswerUs)} µs (${int(own(c.watchlog))} µs less its background)`,
    ),
    line('baseline', c.baseline, `${int(c.baseline.cpuPerAnswerUs)} µs`),
  ];
};

const pacedLines = (c: Compared<Slice<Paced>[]>, when: string): string[] => {
  const line = (who: string, slices: Slice<Paced>[]) =>
    slices.map(
      (p, i) =>
        `    ${(i === 0 ? who : '').padEnd(9)} ${int(p.achieved).padStart(7)} answers/s   p50 ${p.p50} ms   ` +
        `p99 ${p.p99} ms   p99.9 ${p.p999} ms   max ${p.max} ms   others ${share(p.others)}   ` +
        `over 20 ms: ${p.slow.windows} windows of 0.1 s in ${p.slow.runs} runs` +
        (p.slow.everyS === null ? '' : `, one every ${p.slow.everyS.toFixed(1)} s (median)`) +
        (p.unexpected + p.errors > 0 ? `   ${p.unexpected} unexpected answers, ${p.errors} errors` : ''),
    );
  const p99 = (slices: Slice<Paced>[]) => median(slices.map((p) => p.p99));
  return [
    `  paced at ${int(c.watchlog[0]!.rate)} req/s (gzip; open loop over up to 64 connections, latency from each ` +
      `request's scheduled time) ${when}, by slice: watchlog's median p99 ` +
      `×${(p99(c.watchlog) / p99(c.baseline)).toFixed(1)} the baseline's`,
    ...line('watchlog', c.watchlog),
    ...line('baseline', c.baseline),
  ];
};

const shownLine = (name: string, f: Freshness): string => {
  const of = (state: string) => f.shown.filter((s) => s.state === state).map((s) => s.ms);
  const figures = (xs: number[]) =>
    xs.length === 0 ? 'none' : `p50 ${int(median(xs))} ms, max ${int(Math.max(...xs))} ms (n=${xs.length})`;
  return (
    `  ${name}: DOWN shown ${figures(of('down'))}; UP shown ${figures(of('operational'))}` +
    (f.missed.length > 0 ? `; NOT SHOWN within 30 s: ${f.missed.join(', ')}` : '') +
    (f.load ? ` (the page meanwhile: ${int(f.load.achieved)} answers/s, p99 ${f.load.p99} ms)` : '')
  );
};

export const printStatusPage = (r: StatusPageReport): string[] => {
  const shown = [...r.quiet.shown, ...r.loaded.shown].map((s) => s.ms);
  const worst = shown.length === 0 ? Number.NaN : Math.max(...shown);
  const missed = r.quiet.missed.length + r.loaded.missed.length;
  const paced = r.paced.watchlog;
  const rate = paced[0]!.rate;
  const kept = paced.every((p) => p.achieved >= p.rate * 0.98 && p.errors + p.unexpected === 0);
  const p99 = median(paced.map((p) => p.p99));
  return [
    `status page: GET /status/:slug, a page of ${r.page.monitors} monitors in ${r.page.groups} groups over ` +
      `${r.page.days} days (${kb(r.page.htmlBytes)} of HTML, ${kb(r.page.gzipBytes)} gzipped), while ${r.monitors} ` +
      `monitors run every ${INTERVAL_S} s (${r.flappers} flapping); baseline: bare Koa serving the same bytes ` +
      'from memory (bench/static-server.ts)',
    `  while measured (${int(r.running.seconds)} s): ${int(r.running.checks)} checks ` +
      `(${int(r.running.checks / r.running.seconds)}/s; by 0.1 s while loaded: ` +
      `${r.running.bursts.perWindow.toFixed(1)} on average, ${r.running.bursts.busiest} at most, half of them in ` +
      `${share(r.running.bursts.halfIn)} of the ` +
      `windows), ${r.running.transitions} transitions; watchlog's ` +
      `background CPU ${share(r.backgroundCpu)} of a core; load average ${r.loadAverage[0].toFixed(1)} → ` +
      `${r.loadAverage[1].toFixed(1)}; "others": the CPU the machine's other processes used meanwhile (a core = 100 %)`,
    ...pair(
      'gzip (Accept-Encoding: gzip, as browsers send; the baseline sends the same gzip bytes)',
      r.gzip,
      r.backgroundCpu,
    ),
    ...pair('identity (no Accept-Encoding)', r.identity, r.backgroundCpu),
    ...pair('304 (If-None-Match: the current ETag, as an open tab asks)', r.notModified, r.backgroundCpu),
    ...pacedLines(r.pacedFew, `with only the page's ${r.page.monitors} monitors running`),
    ...pacedLines(r.paced, `with all ${r.monitors}`),
    shownLine('transition to page, monitors only', r.quiet),
    shownLine(`transition to page, at ${int(rate)} req/s`, r.loaded),
    `  an open tab asks every ${TAB_POLL_MS / 1000} s: its reader sees it at most ${int(worst + TAB_POLL_MS)} ms after`,
    `  targets: >= ${int(TARGETS.rps)} req/s (gzip) ${verdict(r.gzip.watchlog.requestsPerSec >= TARGETS.rps)}   ` +
      `p99 < ${TARGETS.p99Ms} ms at ${int(rate)} req/s ${verdict(kept && p99 < TARGETS.p99Ms)} (median of slices)   ` +
      `shown within ${TARGETS.shownMs / 1000} s ${verdict(missed === 0 && worst < TARGETS.shownMs)}`,
  ];
};
