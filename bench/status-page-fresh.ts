import { json, type Watchlog } from './support.ts';
import { pacedLoadApart, type Paced } from './status-page-load.ts';
import { TIMED, type PageTargets } from './status-page-fill.ts';

/** How soon the page shows a transition: TIMED monitors of the page made to fail (then to
 *  answer again) at once; each goes DOWN at its own next check, spread over its interval. The
 *  page is read every POLL_MS, and each monitor's delay is from its transition (the check that
 *  made it, `status_since`) to the first answer that shows it. */

const POLL_MS = 50;
/** Longer than two intervals: a check a little late still counts. */
const WAIT_MS = 30_000;

export interface Shown {
  monitor: string;
  state: 'down' | 'operational';
  /** From the transition's check to the first answer showing it, ms. */
  ms: number;
}

export interface Freshness {
  shown: Shown[];
  /** Transitions the page had not shown within WAIT_MS. */
  missed: string[];
  /** The page's answers to the load running meanwhile (under load only). */
  load?: Paced;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A monitor's state as the page's HTML shows it. */
export const shownState = (html: string, name: string): string | null =>
  new RegExp(`<h4 class="monitor__name">${escapeRe(name)}</h4><p class="state state--([a-z]+)">`).exec(html)?.[1] ??
  null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One flip of every TIMED monitor to `state`, timed. */
const flip = async (
  w: Watchlog,
  pageUrl: string,
  ids: ReadonlyMap<string, string>,
  targets: PageTargets,
  state: Shown['state'],
): Promise<{ shown: Shown[]; missed: string[] }> => {
  for (const name of TIMED) {
    if (state === 'down') targets.failing.add(name);
    else targets.failing.delete(name);
  }
  const seenAt = new Map<string, number>();
  const deadline = Date.now() + WAIT_MS;
  while (seenAt.size < TIMED.length && Date.now() < deadline) {
    const html = await (await fetch(pageUrl, { headers: { 'accept-encoding': 'gzip' } })).text();
    const at = Date.now();
    for (const name of TIMED) if (!seenAt.has(name) && shownState(html, name) === state) seenAt.set(name, at);
    await sleep(POLL_MS);
  }
  const shown: Shown[] = [];
  for (const [monitor, at] of seenAt) {
    const m = await json<{ status: string; status_since: string | null }>(`${w.base}/v1/monitors/${ids.get(monitor)}`, {
      headers: w.auth,
    });
    if (m.status_since === null) throw new Error(`${monitor}: ${m.status} without status_since`);
    shown.push({ monitor, state, ms: at - Date.parse(m.status_since) });
  }
  return { shown, missed: TIMED.filter((name) => !seenAt.has(name)).map((name) => `${name} ${state}`) };
};

/** `rounds` times: every TIMED monitor DOWN, then UP again. */
export const freshness = async (
  w: Watchlog,
  pageUrl: string,
  ids: ReadonlyMap<string, string>,
  targets: PageTargets,
  rounds: number,
): Promise<Freshness> => {
  const result: Freshness = { shown: [], missed: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const state of ['down', 'operational'] as const) {
      const { shown, missed } = await flip(w, pageUrl, ids, targets, state);
      result.shown.push(...shown);
      result.missed.push(...missed);
    }
  }
  return result;
};

/** The same while the page is asked for (gzip, as a new reader’s browser asks) at
 *  `rate` requests a second. */
export const freshnessUnderLoad = async (
  w: Watchlog,
  pageUrl: string,
  ids: ReadonlyMap<string, string>,
  targets: PageTargets,
  rounds: number,
  rate: number,
): Promise<Freshness> => {
  let done = false;
  const loading = pacedLoadApart(pageUrl, { 'accept-encoding': 'gzip' }, rate, { stop: () => done });
  let measured: Freshness;
  try {
    // The load at its pace before the first flip.
    await sleep(2000);
    measured = await freshness(w, pageUrl, ids, targets, rounds);
  } finally {
    done = true;
  }
  const load = await loading;
  return { ...measured, load };
};
