import { eventMasker, type ProjectMasking } from '../src/domain/masking.ts';
import { compileMaskingRules } from '../src/domain/masking-rules.ts';

/** A micro-benchmark of masking one event's four bodies (ingest's only per-event CPU work that
 *  grows with the body), in ns per event: the built-in rules alone, and with a project's own
 *  keys and value patterns. */

/** A realistic event's four masked fields (~1.2 KB of JSON): snake_case keys, nesting, an array,
 *  a card number and a password. */
export const BODY: Record<
  'query_params' | 'path_params' | 'request_body' | 'response_body',
  Record<string, unknown>
> = {
  query_params: { page: '2', limit: '20', sort: 'created_at', include: 'items,address' },
  path_params: { order_id: 'ord-7f3a9c' },
  request_body: {
    email: 'ann@example.com',
    password: 'hunter2',
    remember_me: true,
    address: { street: '12 Rue de la Paix', city: 'Paris', postal_code: '75002', country: 'FR' },
    items: [
      { sku: 'sku-1001', qty: 2, unit_price_cents: 1299, gift_wrap: false },
      { sku: 'sku-2002', qty: 1, unit_price_cents: 4999, gift_wrap: true },
      { sku: 'sku-3003', qty: 5, unit_price_cents: 199, gift_wrap: false },
    ],
    payment: { method: 'card', card_number: '4111 1111 1111 1111', holder_name: 'Ann Example', expiry: '12/29' },
    note: 'Please leave the parcel at the door, ring twice.',
  },
  response_body: {
    ok: true,
    order_id: 'ord-7f3a9c',
    created_at: '2026-11-23T10:00:00.000Z',
    status: 'confirmed',
    user: { id: 'usr-42', email: 'ann@example.com', display_name: 'Ann' },
    total_cents: 8592,
    currency: 'EUR',
    tracking_url: 'https://track.example.com/ord-7f3a9c',
  },
};

export const PROJECT_RULES = {
  keys: ['order_id', 'holder-name', 'x-session'],
  patterns: ['(?i)bearer\\s+\\S+', 'AKIA[0-9A-Z]{16}', 'sk_live_[0-9a-zA-Z]{24,}'],
};

const FIELDS = ['query_params', 'path_params', 'request_body', 'response_body'] as const;

const maskEvent = (project: ProjectMasking | null) => (): number => {
  const mask = eventMasker(project);
  let n = 0;
  for (const field of FIELDS) n += Object.keys(mask(BODY[field])).length;
  return n;
};

const nsPerEvent = (run: () => number, iterations: number): number => {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) sink += run();
  const ns = Number(process.hrtime.bigint() - start);
  if (sink === 0) throw new Error('unreachable');
  return ns / iterations;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Patterns whose automaton explodes (re2js builds a new state at nearly every character) and
 *  an event made against them: 4,000 strings of 256 random characters, each able to match only
 *  at its end. The scan budget is what bounds this event. */
const WORST_PATTERNS = ['\\b(?:[a-z]|.){0,20}x.{0,20}\\b', '.{0,25}1.{0,25}y'];
const worstEvent = (): Record<string, unknown> => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return String.fromCharCode(33 + (seed % 90));
  };
  return {
    strings: Array.from(
      { length: 4000 },
      () => `${Array.from({ length: 254 }, random).join('').replace(/[xy]/g, 'w')}x0`,
    ),
  };
};

export interface MaskingReport {
  builtIn: { min: number; median: number };
  withProjectRules: { min: number; median: number };
  /** ms for the adversarial event, five times, each on freshly compiled patterns. */
  worstEventMs: number[];
}

/** The variants alternate, 15 rounds of 50,000 events each after a warm-up, so that a noisy
 *  machine slows them alike; min and median over the rounds. */
export const maskingBenchmark = async (): Promise<MaskingReport> => {
  const variants = { builtIn: maskEvent(null), withProjectRules: maskEvent(compileMaskingRules(PROJECT_RULES)) };
  for (const run of Object.values(variants)) for (let i = 0; i < 3; i += 1) nsPerEvent(run, 50_000);
  const rounds: Record<keyof typeof variants, number[]> = { builtIn: [], withProjectRules: [] };
  for (let round = 0; round < 15; round += 1) {
    for (const [name, run] of Object.entries(variants) as Array<[keyof typeof variants, () => number]>)
      rounds[name].push(nsPerEvent(run, 50_000));
  }
  const summary = (xs: number[]) => ({ min: Math.round(Math.min(...xs)), median: Math.round(median(xs)) });
  const worstEventMs = Array.from({ length: 5 }, () => {
    const mask = eventMasker(compileMaskingRules({ keys: [], patterns: WORST_PATTERNS }));
    const event = worstEvent();
    const started = performance.now();
    mask(event);
    return Math.round(performance.now() - started);
  });
  return { builtIn: summary(rounds.builtIn), withProjectRules: summary(rounds.withProjectRules), worstEventMs };
};

export const printMasking = (r: MaskingReport): string[] => [
  "masking (one event's four bodies, ~1.2 KB)",
  `  built-in rules:           min ${r.builtIn.min} ns, median ${r.builtIn.median} ns per event`,
  `  with a project's rules:   min ${r.withProjectRules.min} ns, median ` +
    `${r.withProjectRules.median} ns per event (3 keys, 3 patterns)`,
  `  adversarial patterns and event (1 MB of strings): ${r.worstEventMs.join(', ')} ms (bounded by the scan budget)`,
];
