import * as t from 'io-ts';
import { RE2JS } from 're2js';
import { boundedString, closed } from './codecs.ts';
import { withSchema } from './json-schema.ts';
import type { ErrorDetail } from './errors.ts';
import { normaliseKey, type ProjectMasking } from './masking.ts';

/** A project's own masking rules: extra secret key names, and value patterns that mask any
 *  string they match. Patterns are RE2 syntax, run by re2js: a linear-time engine (no
 *  backtracking, so no input can make a pattern take exponential time), with every bound below
 *  keeping the linear factor small too. Never a JavaScript RegExp. */

export const MASKING_LIMITS = {
  keys: 100,
  keyLength: 100,
  patterns: 20,
  patternLength: 200,
  /** Compiled size of one pattern, in instructions: large counted repetitions (`.{0,100}`) are
   *  what makes a linear-time matcher slow. */
  patternInstructions: 200,
  /** Compiled size of all of a project's patterns together. */
  totalInstructions: 500,
} as const;

export interface MaskingRules {
  readonly keys: readonly string[];
  readonly patterns: readonly string[];
}

export const NO_MASKING_RULES: MaskingRules = { keys: [], patterns: [] };

const boundedArray = <C extends t.Mixed>(item: C, max: number) =>
  withSchema(
    new t.Type<Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown>(
      `an array of at most ${max} items, each ${item.name}`,
      (u): u is Array<t.TypeOf<C>> => Array.isArray(u) && u.length <= max && u.every(item.is),
      (u, c) => {
        if (!Array.isArray(u) || u.length > max) return t.failure(u, c);
        return t.array(item).validate(u, c);
      },
      t.identity,
    ),
    { maxItems: max },
    t.array(item),
  );

/** The body of `PUT /v1/projects/:id/masking`: both lists, replacing the project's rules;
 *  a field it does not define is an error. */
export const MaskingRulesBody = closed(
  t.type({
    keys: boundedArray(boundedString(1, MASKING_LIMITS.keyLength), MASKING_LIMITS.keys),
    patterns: boundedArray(boundedString(1, MASKING_LIMITS.patternLength), MASKING_LIMITS.patterns),
  }),
  'field',
  'masking rules',
);

export const maskingEvents = {
  /** The project's rules from now on, as a whole (the log does not re-check the patterns: an
   *  event once written stays readable). */
  MaskingRulesSet: t.type({
    project_id: t.string,
    keys: t.array(t.string),
    patterns: t.array(t.string),
    updated_at: t.string,
  }),
} as const;

/** The rules without repeats: keys that normalise alike and identical patterns, first kept. */
export const withoutRepeats = (rules: MaskingRules): MaskingRules => {
  const seen = new Set<string>();
  const keys = rules.keys.filter((key) => {
    const name = normaliseKey(key);
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
  return { keys, patterns: [...new Set(rules.patterns)] };
};

export const sameRules = (a: MaskingRules, b: MaskingRules): boolean =>
  a.keys.length === b.keys.length &&
  a.patterns.length === b.patterns.length &&
  a.keys.every((k, i) => k === b.keys[i]) &&
  a.patterns.every((p, i) => p === b.patterns[i]);

const compile = (pattern: string): RE2JS => RE2JS.compile(pattern);

/** All patterns as one: a string matches it when it matches one of them. */
const combined = (patterns: readonly string[]): string => patterns.map((p) => `(?:${p})`).join('|');

/** What is wrong with rules, entry by entry (`keys.3`, `patterns.0`), beyond their shape. */
export const maskingRulesProblems = (rules: MaskingRules): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  rules.keys.forEach((key, i) => {
    if (normaliseKey(key) === '')
      problems.push({ path: `keys.${i}`, message: 'must have a character other than - and _' });
  });
  rules.patterns.forEach((pattern, i) => {
    const path = `patterns.${i}`;
    let re: RE2JS;
    try {
      re = compile(pattern);
    } catch (error) {
      problems.push({ path, message: `not a valid RE2 pattern: ${(error as Error).message}` });
      return;
    }
    if (re.programSize() > MASKING_LIMITS.patternInstructions) {
      problems.push({
        path,
        message:
          `compiles to ${re.programSize()} instructions, more than ${MASKING_LIMITS.patternInstructions}: ` +
          `use smaller repetition counts`,
      });
    } else if (re.test('')) {
      problems.push({ path, message: 'matches the empty string, so it would mask every value' });
    }
  });
  if (problems.length === 0 && rules.patterns.length > 0) {
    const size = compile(combined(rules.patterns)).programSize();
    if (size > MASKING_LIMITS.totalInstructions) {
      problems.push({
        path: 'patterns',
        message: `compile to ${size} instructions together, more than ${MASKING_LIMITS.totalInstructions}`,
      });
    }
  }
  return problems;
};

/** The rules as ingest applies them; null when there are none, so that masking costs what it
 *  costs without project rules. Throws on rules that `maskingRulesProblems` would refuse. */
export const compileMaskingRules = (rules: MaskingRules): ProjectMasking | null => {
  if (rules.keys.length === 0 && rules.patterns.length === 0) return null;
  const re = rules.patterns.length === 0 ? null : compile(combined(rules.patterns));
  return {
    keys: new Set(rules.keys.map(normaliseKey)),
    values: re && { test: (s: string) => re.test(s), cost: re.programSize() },
  };
};
