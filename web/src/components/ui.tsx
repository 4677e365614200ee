import type { ReactNode } from 'react';
import { ApiError } from '../api.ts';

/** An API error in words, never swallowed: the server's message and each field at fault. */
export const ErrorNote = ({ error, title }: { error: unknown; title?: string }) => {
  if (error === null || error === undefined) return null;
  const e =
    error instanceof ApiError
      ? error
      : new ApiError(0, 'error', error instanceof Error ? error.message : String(error));
  return (
    <div className="error-note" role="alert">
      {title !== undefined && <strong>{title}: </strong>}
      {e.message}
      {e.details.length > 0 && (
        <ul>
          {e.details.map((d) => (
            <li key={`${d.path}:${d.message}`}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};

/** The server's messages for a field and the paths below it, for showing next to it; for an entry
 *  of a list typed as text (`field.N`), said with that entry. */
export const messagesAt = (error: unknown, path: string, entries: readonly string[] = []): string | undefined =>
  (error instanceof ApiError &&
    error.details
      .filter((d) => d.path === path || d.path.startsWith(`${path}.`))
      .map((d) => {
        const entry = entries[Number(d.path.slice(path.length + 1))];
        return entry === undefined ? d.message : `${entry}: ${d.message}`;
      })
      .join('; ')) ||
  undefined;

export const Loading = ({ what }: { what: string }) => (
  <p className="muted" role="status" aria-live="polite">
    Loading {what}…
  </p>
);

export const Empty = ({ children }: { children: ReactNode }) => <div className="empty">{children}</div>;

/** A form field with its label and the server's message for it, tied by aria-describedby. */
export const Field = ({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactNode;
}) => (
  <div className={`field${error ? ' invalid' : ''}`}>
    <label htmlFor={id}>{label}</label>
    {children}
    {hint !== undefined && (
      <small id={`${id}-hint`} className="muted">
        {hint}
      </small>
    )}
    {error !== undefined && (
      <small id={`${id}-error`} className="field-error" role="alert">
        {error}
      </small>
    )}
  </div>
);

export const Health = ({ status }: { status: 'UP' | 'DOWN' | 'PENDING' | undefined }) =>
  status === undefined ? (
    <span className="health none" role="img" aria-label="no monitor">
      —
    </span>
  ) : (
    <span className={`health ${status.toLowerCase()}`}>{status}</span>
  );

/** Beside a monitor's state while an open maintenance window covers it. */
export const MaintenanceBadge = () => (
  <span className="maintenance-badge" title="A maintenance window is open: its checks notify no one">
    maintenance
  </span>
);
