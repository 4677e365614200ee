/** SPEC 2.3, widened by issue 11: masking applied to bodies before anything is stored. The
 *  built-in rules (secret keys, card numbers) are @watchlog/masking's, which the SDKs apply too;
 *  here a project's own rules join them: its extra key names, and its value patterns (a string
 *  that one of them matches becomes MASK). Pure; never mutates its input. */
import { MASK, SECRET_KEYS, define, maskCardNumbers, maskObject, normaliseKey } from '@watchlog/masking';

export {
  COMMON_SECRET_KEYS,
  MASK,
  SPEC_SECRET_KEYS,
  isSecretKey,
  maskCardNumbers,
  maskObject,
  maskValue,
  normaliseKey,
} from '@watchlog/masking';

/** A project's own rules, compiled (see masking-rules.ts): extra key names, normalised, and its
 *  value patterns as one matcher that runs in time linear in the text it reads. */
export interface ProjectMasking {
  readonly keys: ReadonlySet<string>;
  readonly values: {
    test(s: string): boolean;
    /** The work per character read, in the matcher's instructions; bounds its worst case. */
    readonly cost: number;
  } | null;
}

/** How much work value patterns may do for one event, in characters read × the matcher's cost
 *  (its instructions). re2js is linear in both, but its constant is large when a pattern's
 *  automaton explodes (`\b(?:[a-z]|.){0,20}x.{0,20}\b` on short random strings: 100–300 ns per
 *  character and instruction, as it builds a new state at nearly every character; unbounded, a
 *  1 MB event of such strings took 14 s). Within this budget that event takes 50–160 ms
 *  (`npm run bench masking`), whatever the patterns: the order of what the built-in rules already
 *  cost on a 1 MiB body of card-like digits (190 ms). Realistic patterns cost a few nanoseconds
 *  per character once their automaton is warm. */
export const SCAN_BUDGET = 512 * 1024;

/** How many characters of an event's strings a project's value patterns read. */
export const scanLimitChars = (cost: number): number => Math.floor(SCAN_BUDGET / Math.max(1, cost));

/** One event's masking with a project's rules: the built-in rules, the project's keys, and its
 *  value patterns within the event's SCAN_BUDGET. A string past the budget is not read but
 *  masked whole: what could not be checked is not stored. MASK itself costs nothing, so masking
 *  again changes nothing. */
class EventMasking {
  private budget = SCAN_BUDGET;

  constructor(private readonly project: ProjectMasking) {}

  value(value: unknown): unknown {
    if (typeof value === 'string') return this.string(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const name = normaliseKey(key);
        define(
          out,
          key,
          SECRET_KEYS.has(name) || this.project.keys.has(name)
            ? MASK
            : this.value((value as Record<string, unknown>)[key]),
        );
      }
      return out;
    }
    return value;
  }

  private string(s: string): string {
    const carded = maskCardNumbers(s);
    const values = this.project.values;
    if (values === null || s.length === 0 || s === MASK) return carded;
    // The patterns see the string as sent and, when card digits were starred, as it will be
    // stored, so a string they pass is stored as one they would pass again.
    const cost = s.length * values.cost * (carded === s ? 1 : 2);
    if (cost > this.budget) return MASK;
    this.budget -= cost;
    return values.test(s) || (carded !== s && values.test(carded)) ? MASK : carded;
  }
}

/** Masks the bodies of one event: with no project rules exactly `maskObject`; with them, every
 *  body of the event shares one scan budget. */
export const eventMasker = (
  project: ProjectMasking | null,
): ((o: Record<string, unknown>) => Record<string, unknown>) => {
  if (project === null) return maskObject;
  const masking = new EventMasking(project);
  return (o) => masking.value(o) as Record<string, unknown>;
};
