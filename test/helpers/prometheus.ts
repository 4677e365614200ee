/** A parser of the Prometheus text exposition format (0.0.4), strict enough that a malformed line
 *  fails the test that scraped it: `# HELP` and `# TYPE` lines, and samples
 *  `name{label="value",…} value [timestamp]` with `\\`, `\"` and `\n` escapes in label values. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The value of the one sample of `name` with (at least) these labels; throws unless exactly one. */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

const parseValue = (text: string, line: string): number => {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad sample value in: ${line}`);
  return Number(text);
};

const parseSample = (line: string): Sample => {
  const name = NAME.exec(line)?.[0];
  if (!name) throw new Error(`bad metric name in: ${line}`);
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = LABEL_NAME.exec(rest)?.[0];
      if (!label || rest[label.length] !== '=' || rest[label.length + 1] !== '"')
        throw new Error(`bad label in: ${line}`);
      rest = rest.slice(label.length + 2);
      let value = '';
      for (;;) {
        const c = rest[0];
        if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
        rest = rest.slice(1);
        if (c === '"') break;
        if (c === '\\') {
          const escaped = rest[0];
          rest = rest.slice(1);
          if (escaped === 'n') value += '\n';
          else if (escaped === '\\' || escaped === '"') value += escaped;
          else throw new Error(`bad escape in: ${line}`);
        } else value += c;
      }
      if (label in labels) throw new Error(`repeated label ${label} in: ${line}`);
      labels[label] = value;
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) throw new Error(`expected , or } in: ${line}`);
    }
    rest = rest.slice(1);
  }
  const fields = rest.trim().split(/\s+/);
  if (!rest.startsWith(' ') || fields.length < 1 || fields.length > 2) throw new Error(`bad sample in: ${line}`);
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`bad timestamp in: ${line}`);
  return { name, labels, value: parseValue(fields[0]!, line) };
};

/** The family a sample belongs to: histograms and summaries add suffixes to their samples. */
const familyOf = (name: string, types: Map<string, string>): string | undefined => {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (types.has(base)) return base;
    }
  }
  return undefined;
};

export const parseExposition = (text: string): Exposition => {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      if (!meta) continue; // a comment
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`bad type in: ${line}`);
        if (types.has(name)) throw new Error(`second TYPE line for ${name}`);
        types.set(name, rest);
      } else help.set(name, rest);
      continue;
    }
    const sample = parseSample(line);
    if (types.size > 0 && familyOf(sample.name, types) === undefined)
      throw new Error(`sample of a family without a TYPE line: ${line}`);
    samples.push(sample);
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    types,
    help,
    samples,
    find,
    value(name, labels = {}) {
      const found = find(name, labels);
      if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]!.value;
    },
  };
};
