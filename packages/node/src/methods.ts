import { AUDIT_METHODS, type AuditMethod } from './event.ts';

/** What to do with a request whose method SPEC 2.1 does not accept (PATCH, HEAD, OPTIONS, …):
 *  `'skip'` records nothing and counts it in `stats().skippedMethods`; a function maps the
 *  method to one of GET, POST, PUT, DELETE, or returns null/undefined to skip it. Sending such a
 *  method as it is would only earn a 400 from the server. */
export type UnsupportedMethodPolicy = 'skip' | ((method: string) => AuditMethod | null | undefined);

/** A ready mapping: PATCH is recorded as PUT (both update) and HEAD as GET (a GET without its
 *  body); OPTIONS and the rest are skipped. */
export const nearestMethod = (method: string): AuditMethod | null => {
  if (method === 'PATCH') return 'PUT';
  if (method === 'HEAD') return 'GET';
  return null;
};

const isAuditMethod = (m: unknown): m is AuditMethod =>
  typeof m === 'string' && (AUDIT_METHODS as readonly string[]).includes(m);

/** The method to record, or null to skip the request. A policy that throws or answers anything
 *  but the four methods skips it too. */
export const methodPolicy =
  (policy: UnsupportedMethodPolicy) =>
  (method: string | undefined): AuditMethod | null => {
    // Node hands methods over upper-case: the four are recognised without a copy.
    if (method === 'GET' || method === 'POST' || method === 'PUT' || method === 'DELETE') return method;
    const upper = (method ?? '').toUpperCase();
    if (isAuditMethod(upper)) return upper;
    if (policy === 'skip') return null;
    try {
      const mapped = policy(upper);
      return isAuditMethod(mapped) ? mapped : null;
    } catch {
      return null;
    }
  };
