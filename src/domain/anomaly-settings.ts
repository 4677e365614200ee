import * as t from 'io-ts';
import { closed, intRange } from './codecs.ts';
import { withSchema } from './json-schema.ts';
import { invalid, type ErrorDetail } from './errors.ts';

/** Per-project anomaly settings: one io-ts definition gives the full settings, the partial
 *  update a PUT (or WATCHLOG_ANOMALY_DEFAULTS) may send, and their types. */

/** A finite number in (min, max]: thresholds such as a z-score or a percentage. */
const numberAbove = (name: string, min: number, max: number): t.Type<number, number, unknown> =>
  withSchema(
    new t.Type<number, number, unknown>(
      name,
      (u): u is number => typeof u === 'number' && Number.isFinite(u) && u > min && u <= max,
      (u, c) => (typeof u === 'number' && Number.isFinite(u) && u > min && u <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'number', exclusiveMinimum: min, maximum: max },
  );

/** Windows are counted in 10-second buckets, so they are whole multiples of the bucket. */
export const MAX_WINDOW_SECS = 3600;
const WindowSecs = withSchema(
  new t.Type<number, number, unknown>(
    `a multiple of 10 from 10 to ${MAX_WINDOW_SECS}`,
    (u): u is number =>
      Number.isInteger(u) && (u as number) >= 10 && (u as number) <= MAX_WINDOW_SECS && (u as number) % 10 === 0,
    (u, c) =>
      Number.isInteger(u) && (u as number) >= 10 && (u as number) <= MAX_WINDOW_SECS && (u as number) % 10 === 0
        ? t.success(u as number)
        : t.failure(u, c),
    t.identity,
  ),
  { type: 'integer', minimum: 10, maximum: MAX_WINDOW_SECS, multipleOf: 10 },
);

const Count = intRange(1, 1_000_000);
export const MAX_BASELINE_MINUTES = 240;

export const ANOMALY_FIELDS = {
  volume_spike: {
    enabled: t.boolean,
    z_threshold: numberAbove('a number above 0 and at most 100', 0, 100),
    baseline_minutes: intRange(10, MAX_BASELINE_MINUTES),
    min_baseline_minutes: intRange(1, MAX_BASELINE_MINUTES),
    min_rate: Count,
  },
  error_rate: {
    enabled: t.boolean,
    threshold_percent: numberAbove('a number above 0 and below 100', 0, 99.999),
    window_secs: WindowSecs,
    min_events: Count,
  },
  brute_force: { enabled: t.boolean, threshold: Count, window_secs: WindowSecs },
  mass_delete: { enabled: t.boolean, threshold: Count, window_secs: WindowSecs },
  silent_service: {
    enabled: t.boolean,
    threshold_minutes: intRange(1, 1440),
    min_events_24h: Count,
  },
} as const;

type Fields = typeof ANOMALY_FIELDS;
export type RuleName = keyof Fields;
export const RULES = Object.keys(ANOMALY_FIELDS) as RuleName[];

export const AnomalySettings = t.type(
  Object.fromEntries(RULES.map((rule) => [rule, t.type(ANOMALY_FIELDS[rule])])) as {
    [R in RuleName]: t.TypeC<Fields[R]>;
  },
  'AnomalySettings',
);
export type AnomalySettings = t.TypeOf<typeof AnomalySettings>;

/** Like t.exact(t.partial(props)), but unknown keys are errors (a misspelt setting is a 400 and
 *  not an update that changes nothing). */
const closedPartial = <P extends t.Props>(props: P, name: string) => closed(t.exact(t.partial(props)), 'field', name);

const orNull = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);
type NullableProps<P extends t.Props> = { [K in keyof P]: t.UnionC<[P[K], t.NullC]> };
const nullable = <P extends t.Props>(props: P): NullableProps<P> =>
  Object.fromEntries(Object.entries(props).map(([k, codec]) => [k, orNull(codec)])) as unknown as NullableProps<P>;

/** A partial update: any rules, any of their fields; `null` puts a field back to the
 *  deployment's default. */
export const AnomalySettingsPatch = closedPartial(
  Object.fromEntries(
    RULES.map((rule) => [rule, closedPartial(nullable(ANOMALY_FIELDS[rule]), `${rule} settings`)]),
  ) as {
    [R in RuleName]: ReturnType<typeof closedPartial<NullableProps<Fields[R]>>>;
  },
  'anomaly settings',
);
export type AnomalySettingsPatch = t.TypeOf<typeof AnomalySettingsPatch>;

/** What a project changed from the defaults: the fields set, never null. */
export type AnomalyOverrides = { [R in RuleName]?: Partial<AnomalySettings[R]> };

/** The defaults of the issue that introduced the rules; a deployment changes them with
 *  WATCHLOG_ANOMALY_DEFAULTS, a project with its settings. */
export const DEFAULT_ANOMALY_SETTINGS: AnomalySettings = {
  volume_spike: { enabled: true, z_threshold: 3, baseline_minutes: 60, min_baseline_minutes: 30, min_rate: 20 },
  error_rate: { enabled: true, threshold_percent: 25, window_secs: 300, min_events: 20 },
  brute_force: { enabled: true, threshold: 10, window_secs: 60 },
  mass_delete: { enabled: true, threshold: 50, window_secs: 60 },
  silent_service: { enabled: true, threshold_minutes: 15, min_events_24h: 10 },
};

/** Folds a patch into overrides: a value sets the field, null removes it. */
export const applyPatch = (overrides: AnomalyOverrides, patch: AnomalySettingsPatch): AnomalyOverrides => {
  const next: Record<string, Record<string, unknown>> = {};
  for (const rule of RULES) {
    const fieldsOfRule: Record<string, unknown> = { ...overrides[rule] };
    for (const [field, value] of Object.entries(patch[rule] ?? {})) {
      if (value === null) delete fieldsOfRule[field];
      else if (value !== undefined) fieldsOfRule[field] = value;
    }
    if (Object.keys(fieldsOfRule).length > 0) next[rule] = fieldsOfRule;
  }
  return next as AnomalyOverrides;
};

/** Whether two sets of overrides set the same fields to the same values. */
export const sameOverrides = (a: AnomalyOverrides, b: AnomalyOverrides): boolean =>
  RULES.every((rule) => {
    const x: Record<string, unknown> = a[rule] ?? {};
    const y: Record<string, unknown> = b[rule] ?? {};
    return Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((field) => x[field] === y[field]);
  });

export const effectiveSettings = (defaults: AnomalySettings, overrides: AnomalyOverrides): AnomalySettings =>
  Object.fromEntries(RULES.map((rule) => [rule, { ...defaults[rule], ...overrides[rule] }])) as AnomalySettings;

/** Rules between fields, on the settings a patch would produce. */
export const settingsProblems = (s: AnomalySettings): ErrorDetail[] =>
  s.volume_spike.min_baseline_minutes > s.volume_spike.baseline_minutes
    ? [
        {
          path: 'volume_spike.min_baseline_minutes',
          message: `must not exceed baseline_minutes (${s.volume_spike.baseline_minutes})`,
        },
      ]
    : [];

export const assertValidSettings = (s: AnomalySettings): void => {
  const problems = settingsProblems(s);
  if (problems.length > 0) throw invalid('anomaly settings', problems);
};
