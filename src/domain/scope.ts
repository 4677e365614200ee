/** Which projects a caller may see: every one (admins) or a list. */
export type Scope = { readonly all: true } | { readonly all: false; readonly projectIds: readonly string[] };

export const inScope = (scope: Scope, projectId: string): boolean => scope.all || scope.projectIds.includes(projectId);

/** The projects a query may read: null for all, else a list (empty when the caller asked for a
 *  project it may not see). */
export const projectsInScope = (scope: Scope, projectId?: string): string[] | null =>
  projectId !== undefined ? (inScope(scope, projectId) ? [projectId] : []) : scope.all ? null : [...scope.projectIds];

/** Whether a list of projects from projectsInScope can match nothing. */
export const seesNothing = (projects: readonly string[] | null): boolean => projects !== null && projects.length === 0;
