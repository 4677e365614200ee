import { DDSketch } from '@datadog/sketches-js';

/** Statistics (SPEC 2.5) from per-minute buckets. Response times go into DDSketch bins (the
 *  library's logarithmic mapping, 1 % relative accuracy): a bin is a key → count map, so bins of
 *  any number of buckets merge by adding counts, and a quantile read from merged bins is within
 *  1 % of the exact one. */

export const RELATIVE_ACCURACY = 0.01;
const MAPPING = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY }).mapping;
/** Values too small for the mapping (0 ms) share one bin. */
export const ZERO_BIN = 'z';

export const binOf = (ms: number): string => (ms < MAPPING.minPossible ? ZERO_BIN : String(MAPPING.key(ms)));

export type Bins = Record<string, number>;

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export const statusClassOf = (code: number): StatusClass => `${Math.floor(code / 100)}xx` as StatusClass;

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** Which buckets cover the minutes from..to (inclusive): whole hours from the hour roll-up, the
 *  ragged ends from minute buckets. `hours` is [start, end) of hour starts, or null. */
export interface RangePlan {
  hours: [number, number] | null;
  minutes: Array<[number, number]>;
}

export const planRange = (from: number, to: number): RangePlan => {
  const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const endHour = hourOf(to + MINUTE_MS);
  if (firstHour >= endHour) return { hours: null, minutes: [[from, to]] };
  const minutes: Array<[number, number]> = [];
  if (from < firstHour) minutes.push([from, firstHour - MINUTE_MS]);
  if (endHour <= to) minutes.push([endHour, to]);
  return { hours: [firstHour, endHour], minutes };
};

/** A range with exact bounds (epoch ms, both inclusive), as the whole minutes inside it (answered
 *  from minute buckets, or null when there are none) and the partial minutes at its edges
 *  (answered from the few events in them): the same events the list counts for the same bounds,
 *  at the cost of the buckets plus the events of at most two minutes. */
export interface ExactRange {
  minutes: [number, number] | null;
  edges: Array<[number, number]>;
}

export const exactRange = (from: number, to: number): ExactRange => {
  const first = Math.ceil(from / MINUTE_MS) * MINUTE_MS;
  const last = minuteOf(to + 1) - MINUTE_MS;
  if (first > last) return { minutes: null, edges: [[from, to]] };
  const edges: Array<[number, number]> = [];
  if (from < first) edges.push([from, first - 1]);
  if (last + MINUTE_MS <= to) edges.push([last + MINUTE_MS, to]);
  return { minutes: [first, last], edges };
};

/** One minute of one service in one environment of one project. */
export interface StatsBucket {
  project_id: string;
  service_name: string;
  environment: string;
  minute: number;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  classes: Partial<Record<StatusClass, number>>;
  methods: Record<string, number>;
  rt_count: number;
  rt_sum: number;
  last_ts: number;
  bins: Bins;
}

/** The bucket contribution of one http event. */
export const bucketOf = (e: {
  project_id: string;
  service_name: string;
  environment: string;
  timestamp: string;
  method: string;
  status_code?: number | undefined;
  response_time?: number | undefined;
}): StatsBucket => {
  const ts = Date.parse(e.timestamp);
  const cls = e.status_code === undefined ? undefined : statusClassOf(e.status_code);
  return {
    project_id: e.project_id,
    service_name: e.service_name,
    environment: e.environment,
    minute: minuteOf(ts),
    total: 1,
    errors_4xx: cls === '4xx' ? 1 : 0,
    errors_5xx: cls === '5xx' ? 1 : 0,
    classes: cls ? { [cls]: 1 } : {},
    methods: { [e.method]: 1 },
    rt_count: e.response_time === undefined ? 0 : 1,
    rt_sum: e.response_time ?? 0,
    last_ts: ts,
    bins: e.response_time === undefined ? {} : { [binOf(e.response_time)]: 1 },
  };
};

/** Adds `from`'s counts into `into`, key by key (status classes, methods, bins); gives `into`. */
export const addCounts = <K extends string>(
  into: Partial<Record<K, number>>,
  from: Partial<Record<K, number>>,
): Partial<Record<K, number>> => {
  for (const k in from) into[k] = (into[k] ?? 0) + from[k]!;
  return into;
};

/** Adds `b` into `a` (same key or not: the counters and bins are what merge). */
export const mergeInto = (a: StatsBucket, b: StatsBucket): StatsBucket => {
  a.total += b.total;
  a.errors_4xx += b.errors_4xx;
  a.errors_5xx += b.errors_5xx;
  addCounts(a.classes, b.classes);
  addCounts(a.methods, b.methods);
  a.rt_count += b.rt_count;
  a.rt_sum += b.rt_sum;
  a.last_ts = Math.max(a.last_ts, b.last_ts);
  addCounts(a.bins, b.bins);
  return a;
};

/** DDSketch's quantile over bins: the value of the bin holding rank q × (count − 1). */
export const quantileOf = (bins: Bins, q: number): number | null => {
  const zero = bins[ZERO_BIN] ?? 0;
  const keyed = Object.entries(bins)
    .filter(([k]) => k !== ZERO_BIN)
    .map(([k, n]) => [Number(k), n] as const)
    .sort((x, y) => x[0] - y[0]);
  const count = zero + keyed.reduce((s, [, n]) => s + n, 0);
  if (count === 0) return null;
  const rank = q * (count - 1);
  if (rank < zero) return 0;
  let seen = zero;
  for (const [key, n] of keyed) {
    seen += n;
    if (seen > rank) return MAPPING.value(key);
  }
  return MAPPING.value(keyed[keyed.length - 1]![0]);
};

export type Interval = 'minute' | 'hour' | 'day';
export const INTERVAL_MS: Record<Interval, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: 86_400_000 };

/** Up to 2 h: minutes; up to 7 days: hours; beyond: days (at most a few hundred points). */
export const intervalFor = (fromMs: number, toMs: number): Interval =>
  toMs - fromMs <= 2 * 3_600_000 ? 'minute' : toMs - fromMs <= 7 * 86_400_000 ? 'hour' : 'day';

const round = (n: number) => Math.round(n * 100) / 100;

export interface ServiceStats {
  service_name: string;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number | null;
  p95_response_time: number | null;
  last_event_at: string | null;
}
export interface TimelinePoint {
  bucket: string;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number | null;
}
export interface Statistics {
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number | null;
  p95_response_time: number | null;
  active_services: number;
  last_event_at: string | null;
  by_service: ServiceStats[];
  by_status_class: Partial<Record<StatusClass, number>>;
  by_method: Record<string, number>;
  timeline: TimelinePoint[];
}

const empty = (service_name = ''): StatsBucket => ({
  project_id: '',
  service_name,
  environment: '',
  minute: 0,
  total: 0,
  errors_4xx: 0,
  errors_5xx: 0,
  classes: {},
  methods: {},
  rt_count: 0,
  rt_sum: 0,
  last_ts: 0,
  bins: {},
});

/** SPEC 2.5 from the buckets of a range. Time figures are null where no event had a response
 *  time; the timeline has a point for every interval of the range, zeros included. */
export const statisticsOf = (
  buckets: readonly StatsBucket[],
  fromMs: number,
  toMs: number,
  interval: Interval,
): Statistics => {
  const all = empty();
  const services = new Map<string, StatsBucket>();
  const step = INTERVAL_MS[interval];
  const points = new Map<number, StatsBucket>();
  for (const b of buckets) {
    mergeInto(all, b);
    mergeInto(
      services.get(b.service_name) ?? services.set(b.service_name, empty(b.service_name)).get(b.service_name)!,
      b,
    );
    const at = Math.floor(b.minute / step) * step;
    mergeInto(points.get(at) ?? points.set(at, empty()).get(at)!, b);
  }
  const avg = (b: StatsBucket) => (b.rt_count === 0 ? null : round(b.rt_sum / b.rt_count));
  const p95 = (b: StatsBucket) => {
    const v = quantileOf(b.bins, 0.95);
    return v === null ? null : round(v);
  };
  const last = (b: StatsBucket) => (b.total === 0 ? null : new Date(b.last_ts).toISOString());
  const timeline: TimelinePoint[] = [];
  for (let at = Math.floor(fromMs / step) * step; at <= toMs; at += step) {
    const b = points.get(at) ?? empty();
    timeline.push({
      bucket: new Date(at).toISOString(),
      total: b.total,
      errors_4xx: b.errors_4xx,
      errors_5xx: b.errors_5xx,
      avg_response_time: avg(b),
    });
  }
  return {
    total: all.total,
    errors_4xx: all.errors_4xx,
    errors_5xx: all.errors_5xx,
    avg_response_time: avg(all),
    p95_response_time: p95(all),
    active_services: services.size,
    last_event_at: last(all),
    by_service: [...services.values()]
      .sort((a, b) => b.total - a.total || a.service_name.localeCompare(b.service_name))
      .map((s) => ({
        service_name: s.service_name,
        total: s.total,
        errors_4xx: s.errors_4xx,
        errors_5xx: s.errors_5xx,
        avg_response_time: avg(s),
        p95_response_time: p95(s),
        last_event_at: last(s),
      })),
    by_status_class: Object.fromEntries(
      STATUS_CLASSES.filter((c) => c !== '1xx' || all.classes['1xx']).map((c) => [c, all.classes[c] ?? 0]),
    ),
    by_method: all.methods,
    timeline,
  };
};
