import { scryptSync } from 'node:crypto';
import { canonicalJson } from '../../domain/canonical-json.ts';

/** How plan compares what the file says with what the API answers. */

export const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Instants compare as instants: the API answers `2026-01-04T02:00:00.000Z` for `…02:00:00Z`. */
export const sameInstant = (a: unknown, b: unknown): boolean =>
  typeof a === 'string' && typeof b === 'string' ? Date.parse(a) === Date.parse(b) : same(a, b);

/** The mark `apply` leaves on a monitor it keeps (its `managed_by`). */
export const MANAGED = 'config-file';

/** The fields of a monitor whose values answers mask, so plan cannot read them back. */
export const MONITOR_SECRETS = ['headers', 'auth'] as const;

/** The mark with a fingerprint of the monitor's secrets: answers mask them, so plan compares
 *  fingerprints. scrypt, salted by the monitor's name, so a fingerprint does not give a weak
 *  password away to whoever reads the monitor. */
export const managedMark = (name: string, secrets: Record<string, unknown>): string => {
  const given = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) return MANAGED;
  const print = scryptSync(canonicalJson(given), `watchlog-config:${name}`, 12, { N: 1 << 14 }).toString('base64url');
  return `${MANAGED} secrets:${print}`;
};

export const isManaged = (mark: unknown): boolean =>
  typeof mark === 'string' && (mark === MANAGED || mark.startsWith(`${MANAGED} `));
