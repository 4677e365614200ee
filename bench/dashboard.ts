import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import {
  ADMIN,
  KEEP_LOG_AS_WRITTEN,
  demoDataDir,
  freePort,
  startProcess,
  verdict,
  type Child,
  type Fill,
} from './support.ts';

/** The dashboard's budgets (issue 13): (a) the JavaScript the first page load needs, gzipped;
 *  (b) the time to a rendered events page with a million events stored; (c) the time to render
 *  the next page of 100 events. Each is printed with its limit and beside a baseline measured in
 *  the same run and browser: (b) against the sign-in page (no data), (c) against inserting 100
 *  plain rows into a table by hand. */

const root = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(root, 'web', 'dist');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
];
const CHROMIUM = process.env.WATCHLOG_CHROMIUM ?? '/usr/bin/chromium';
const EVENTS_TABLE = 'table[aria-label="Events"]';
/** Past this, the Events table is taken as not there at all. */
const NOT_BUILT_MS = 15_000;

export const LIMITS = { initialJsKb: 200, eventsPageMs: 1000, nextPageMs: 50 } as const;

export interface InitialJs {
  files: Array<{ file: string; bytes: number; gzip: number }>;
  gzipKb: number;
}

/** The scripts and modulepreloads of index.html (what loads before the first render; chunks
 *  loaded later by `import()` are not counted), gzipped at the default level. */
export const initialJs = (dist = DIST): InitialJs => {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const urls = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) urls.add(m[1]!);
  for (const m of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)) urls.add(m[1]!);
  for (const m of html.matchAll(/<link\b[^>]*\bhref="([^"]+)"[^>]*\brel="modulepreload"/g)) urls.add(m[1]!);
  const files = [...urls].map((url) => {
    const content = readFileSync(path.join(dist, url.replace(/^\//, '')));
    return { file: url, bytes: content.length, gzip: gzipSync(content).length };
  });
  return { files, gzipKb: Math.round((files.reduce((n, f) => n + f.gzip, 0) / 1024) * 10) / 10 };
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
};
const round = (n: number) => Math.round(n * 10) / 10;

/** What the page says, shortened: a "not built yet" report shows what was there instead. */
const pageText = async (page: Page): Promise<string> =>
  (
    await page
      .locator('main')
      .first()
      // biome-ignore lint/performance/useDomNodeTextContent: the report quotes the page's text as shown
      .innerText({ timeout: 1000 })
      .catch(() =>
        page
          .locator('body')
          // biome-ignore lint/performance/useDomNodeTextContent: the report quotes the page's text as shown
          .innerText({ timeout: 1000 })
          .catch(() => ''),
      )
  )
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);

type Timed = { built: true; runsMs: number[]; medianMs: number; maxMs: number } | { built: false; reason: string };

/* The code below that runs in the page is given as source text: the root tsconfig has no DOM
 * library (the server code must not see browser globals), and the page runs it as it is. Waits
 * are locators, not waitForFunction: the page's CSP (no 'unsafe-eval') refuses the latter. */

/** Clicks the next-page control (or, without one, changes the URL through the app's router) and
 *  resolves to the ms until 100 rows other than the current ones are in the table. */
const NEXT_PAGE_SOURCE = `async ({ sel, pageNo }) => {
  const table = document.querySelector(sel);
  const before = table.querySelector('tbody tr')?.textContent ?? '';
  const controls = [...document.querySelectorAll('button, a')];
  const next = controls.find(
    (el) => /^next\\b/i.test((el.getAttribute('aria-label') ?? el.textContent ?? '').trim()) && !el.disabled,
  );
  const done = () => {
    const current = document.querySelector(sel);
    return current !== null && current.querySelectorAll('tbody tr').length >= 100 &&
      (current.querySelector('tbody tr')?.textContent ?? '') !== before;
  };
  const started = performance.now();
  if (next) next.click();
  else {
    const url = new URL(location.href);
    url.searchParams.set('page', String(pageNo));
    history.pushState(null, '', url);
    dispatchEvent(new PopStateEvent('popstate'));
  }
  await new Promise((resolve, reject) => {
    if (done()) { resolve(); return; }
    const observer = new MutationObserver(() => {
      if (done()) { observer.disconnect(); resolve(); }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    setTimeout(() => { observer.disconnect(); reject(new Error('no new rows within 10 s')); }, 10000);
  });
  return {
    ms: performance.now() - started,
    via: next ? 'click on the next-page control' : 'URL change (no next-page control found)',
  };
}`;

/** 100 rows of 8 cells built and inserted by hand, then laid out; ten times. */
const PLAIN_ROWS_SOURCE = `(() => {
  const times = [];
  for (let r = 0; r < 10; r += 1) {
    const table = document.createElement('table');
    document.body.append(table);
    const started = performance.now();
    const body = document.createElement('tbody');
    for (let i = 0; i < 100; i += 1) {
      const tr = document.createElement('tr');
      for (let c = 0; c < 8; c += 1) {
        const td = document.createElement('td');
        td.textContent = 'cell ' + r + '-' + i + '-' + c;
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(body);
    void table.offsetHeight;
    times.push(performance.now() - started);
    table.remove();
  }
  return times;
})()`;

/** From `goto` to the Events table holding 20 rows; five times (the first is cold: no query cache). */
const eventsPage = async (page: Page, projectId: string): Promise<Timed> => {
  const runs: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    await page.goto('/projects');
    const started = performance.now();
    await page.goto(`/p/${projectId}/events`);
    try {
      await page.locator(`${EVENTS_TABLE} tbody tr`).nth(19).waitFor({ timeout: NOT_BUILT_MS });
    } catch {
      return {
        built: false,
        reason:
          `no <table aria-label="Events"> with 20 rows within ${NOT_BUILT_MS / 1000} s: the Events page is ` +
          `not built yet (at ${new URL(page.url()).pathname}: "${await pageText(page)}")`,
      };
    }
    runs.push(performance.now() - started);
  }
  return { built: true, runsMs: runs.map(round), medianMs: round(median(runs)), maxMs: round(Math.max(...runs)) };
};

/** Resolves once no request of the page has been in flight for `quietMs`. Playwright's
 *  `waitForLoadState('networkidle')` cannot serve here: it is a state of the document's load,
 *  reached once, so after the first page it resolves at once, whatever the app is fetching. */
const networkQuiet = (page: Page, quietMs = 300, timeoutMs = 10_000): Promise<void> =>
  new Promise((resolve, reject) => {
    const inFlight = new Set<unknown>();
    let timer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      finish();
      reject(new Error(`the page kept fetching for ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const arm = () => {
      clearTimeout(timer);
      if (inFlight.size === 0)
        timer = setTimeout(() => {
          finish();
          resolve();
        }, quietMs);
    };
    const started = (r: unknown) => {
      inFlight.add(r);
      clearTimeout(timer);
    };
    const ended = (r: unknown) => {
      inFlight.delete(r);
      arm();
    };
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
    };
    page.on('request', started);
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    arm();
  });

/** The next page of 100 rows, ten times: from the click on the next-page control (or, without
 *  one, the URL change through the app's router) to 100 new rows in the table, timed in the page,
 *  each click once the network is idle (the next page prefetched, as it is for a reader). */
const nextPages = async (page: Page, projectId: string): Promise<Timed & { via?: string }> => {
  await page.goto(`/p/${projectId}/events?limit=100`);
  try {
    await page.locator(`${EVENTS_TABLE} tbody tr`).nth(99).waitFor({ timeout: NOT_BUILT_MS });
  } catch {
    return {
      built: false,
      reason:
        `no <table aria-label="Events"> with 100 rows at ?limit=100 within ${NOT_BUILT_MS / 1000} s: the ` +
        `Events page is not built yet (at ${new URL(page.url()).pathname}: "${await pageText(page)}")`,
    };
  }
  const runs: number[] = [];
  let via = '';
  for (let i = 0; i < 10; i += 1) {
    // A person reads a page before pressing Next: by then the page has prefetched the next one,
    // so what is timed is the render.
    await networkQuiet(page);
    const result = (await page.evaluate(
      `(${NEXT_PAGE_SOURCE})(${JSON.stringify({ sel: EVENTS_TABLE, pageNo: i + 2 })})`,
    )) as { ms: number; via: string };
    runs.push(result.ms);
    via = result.via;
  }
  return { built: true, runsMs: runs.map(round), medianMs: round(median(runs)), maxMs: round(Math.max(...runs)), via };
};

/** Baseline for (b): the sign-in page to its button, in the tab that then signs in (the same
 *  HTTP cache): the app's start-up and first render without data. */
const signInPage = async (page: Page): Promise<number> => {
  const runs: number[] = [];
  for (let i = 0; i < 6; i += 1) {
    await page.goto('/login?baseline');
    const started = performance.now();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    if (i > 0) runs.push(performance.now() - started);
  }
  return round(median(runs));
};

/** Baseline for (c): 100 plain rows built and inserted by hand, the median of ten. */
const plainRows = async (page: Page): Promise<number> =>
  round(median((await page.evaluate(PLAIN_ROWS_SOURCE)) as number[]));

export interface DashboardReport {
  initialJs: InitialJs;
  fill: Omit<Fill, 'dir'>;
  signInPageMs: number;
  eventsPage: Timed;
  plainRowsMs: number;
  nextPage: Timed & { via?: string };
}

export const dashboardBenchmark = async (): Promise<DashboardReport> => {
  if (!existsSync(path.join(DIST, 'index.html')))
    throw new Error('web/dist/index.html is missing: run `npm run build -w web` first (npm run bench:dashboard does)');
  const js = initialJs();
  const events = Number(process.env.BENCH_DASHBOARD_EVENTS ?? 1_000_000);
  process.stderr.write(`  a data dir of ${events} events (BENCH_DASHBOARD_EVENTS) under .bench/…\n`);
  const fill = await demoDataDir(events);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: Child = await startProcess(
    [path.join(root, 'dist/src/main.js'), 'start'],
    {
      PORT: String(port),
      WATCHLOG_DATA_DIR: fill.dir,
      WATCHLOG_LOG_LEVEL: 'warn',
      WATCHLOG_DASHBOARD_DIR: DIST,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
      ...KEEP_LOG_AS_WRITTEN,
    },
    async () => (await fetch(`${base}/readyz`)).ok,
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const signInPageMs = await signInPage(page);
    await page.goto('/login');
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    const eventsTimed = await eventsPage(page, fill.projectId);
    const plainRowsMs = await plainRows(page);
    const nextPage = eventsTimed.built ? await nextPages(page, fill.projectId) : eventsTimed;
    const { dir: _, ...fillReport } = fill;
    return { initialJs: js, fill: fillReport, signInPageMs, eventsPage: eventsTimed, plainRowsMs, nextPage };
  } finally {
    await browser.close();
    await server.stop();
  }
};

export const printDashboard = (r: DashboardReport): string[] => {
  const { fill } = r;
  const rate = Math.round(fill.events / (fill.appendMs / 1000));
  const timed = (name: string, t: Timed, limit: number, baseline: string, baselineMs: number) =>
    t.built
      ? `${name}: median ${t.medianMs} ms, max ${t.maxMs} ms (runs ${t.runsMs.join(', ')}) ` +
        `${verdict(t.medianMs < limit)} (< ${limit} ms); ` +
        `x${(t.medianMs / Math.max(0.1, baselineMs)).toFixed(1)} ${baseline} (${baselineMs} ms)`
      : `${name}: NOT BUILT YET — ${t.reason} (limit < ${limit} ms; ${baseline}: ${baselineMs} ms)`;
  return [
    `dashboard budgets, ${fill.events.toLocaleString('en')} events stored (BENCH_DASHBOARD_EVENTS; ` +
      `the budget is set at 1,000,000)`,
    `(a) initial JS ${r.initialJs.gzipKb} KB gzipped ` +
      `${verdict(r.initialJs.gzipKb <= LIMITS.initialJsKb)} (<= ${LIMITS.initialJsKb} KB): ` +
      r.initialJs.files
        .map((f) => `${f.file} ${Math.round(f.bytes / 1024)} KB → ${Math.round(f.gzip / 102.4) / 10} KB`)
        .join(', '),
    `    fill: ${fill.reused ? 'reused .bench/ (filled earlier: ' : ''}appended in ` +
      `${(fill.appendMs / 1000).toFixed(1)} s (${rate.toLocaleString('en')} events/s), ` +
      `read models built in ${(fill.projectMs / 1000).toFixed(1)} s${fill.reused ? ')' : ''}`,
    timed(
      '(b) goto /p/:id/events to 20 rows',
      r.eventsPage,
      LIMITS.eventsPageMs,
      'the sign-in page (no data)',
      r.signInPageMs,
    ),
    timed(
      `(c) next page of 100 rows${'via' in r.nextPage && r.nextPage.via ? ` (${r.nextPage.via})` : ''}`,
      r.nextPage,
      LIMITS.nextPageMs,
      '100 plain rows inserted by hand',
      r.plainRowsMs,
    ),
  ];
};
