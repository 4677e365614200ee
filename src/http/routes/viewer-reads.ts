import { viewerFilter, viewerQueryProblem, viewerSees, withoutHidden } from '../../domain/viewer-token.ts';
import type { Principal } from '../middleware/auth.ts';
import { HttpError, validationError } from '../middleware/errors.ts';

/** How the handlers that take viewer tokens narrow a read to the token's grant: its tenant (and
 *  identifier) in place of the caller's filters, its hidden fields left out of what is answered.
 *  Callers of any other kind read as they asked. */

/** The filter a read uses: a viewer's narrowed to its grant; one naming another tenant or
 *  identifier is 404, as a project the caller may not see is; a search or an order that would
 *  reach a field the grant hides is 400. */
export const narrowed = <
  F extends {
    tenant_id?: string | undefined;
    identifier?: string | undefined;
    q?: { terms: readonly { kind: string; field?: string }[] } | undefined;
    sort_by?: string | undefined;
  },
>(
  principal: Principal,
  filter: F,
): F => {
  if (principal.viewer === undefined) return filter;
  const problem = viewerQueryProblem(principal.viewer, filter.q?.terms ?? [], filter.sort_by);
  if (problem !== null) throw validationError('query', [problem]);
  const narrow = viewerFilter(principal.viewer, filter);
  if (narrow === null) throw new HttpError(404, 'not_found', 'tenant not found');
  return narrow;
};

/** What the caller is answered of a record: a viewer's without its hidden fields (list items keep
 *  their shape, with null in their place). */
export const shown = <R extends object>(principal: Principal, record: R, keepShape = false): R =>
  principal.viewer === undefined ? record : withoutHidden(principal.viewer, record, keepShape);

/** Whether the caller reads this event: a viewer only its grant's. */
export const readable = (
  principal: Principal,
  event: { project_id: string; tenant_id?: string; identifier: string },
): boolean => principal.viewer === undefined || viewerSees(principal.viewer, event);
