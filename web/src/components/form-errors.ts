import { ApiError, type ErrorDetail } from '../api.ts';

/** A 400's details, read by field path for showing each message beside its field. */
export interface FieldErrors {
  /** The error as the API said it, or null (none yet, or not an API error). */
  api: ApiError | null;
  /** The message at exactly `path`. */
  at: (path: string) => string | undefined;
  /** The message at `path` or under it (`groups.0.name` shows at `groups.0`). */
  under: (path: string) => string | undefined;
  /** The details no field of the form shows, given the paths it does show (and all under them). */
  unplaced: (shown: readonly string[]) => ErrorDetail[];
}

const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}.`);

export const fieldErrors = (error: unknown): FieldErrors => {
  const api = error instanceof ApiError ? error : null;
  return {
    api,
    at: (path) => api?.fieldMessage(path),
    under: (path) => api?.details.find((d) => within(d.path, path))?.message,
    unplaced: (shown) => api?.details.filter((d) => !shown.some((p) => within(d.path, p))) ?? [],
  };
};

/** `aria-describedby` of a field shown by `Field`: its hint and its error, when it has them. */
export const describedBy = (id: string, hint: boolean, error: string | undefined): string | undefined =>
  [hint ? `${id}-hint` : '', error !== undefined ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
