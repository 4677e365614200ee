import type { Monitor } from '../api.ts';

/** A choice of some of the project's monitors, as checkboxes in a fieldset. */
export const MonitorChoice = ({
  id,
  legend,
  monitors,
  chosen,
  onChange,
  error,
  hint,
}: {
  id: string;
  legend: string;
  monitors: readonly Monitor[];
  chosen: readonly string[];
  onChange: (ids: string[]) => void;
  error?: string | undefined;
  hint?: string;
}) => {
  const unknown = chosen.filter((c) => !monitors.some((m) => m.id === c));
  return (
    <fieldset
      className={`monitor-choice${error !== undefined ? ' invalid' : ''}`}
      aria-describedby={[hint !== undefined ? `${id}-hint` : '', error !== undefined ? `${id}-error` : '']
        .filter(Boolean)
        .join(' ')}
    >
      <legend>{legend}</legend>
      {hint !== undefined && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {monitors.length === 0 && <p className="muted">This project has no monitor yet.</p>}
      {monitors.map((m) => (
        <label key={m.id} className="checkbox">
          <input
            type="checkbox"
            checked={chosen.includes(m.id)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, m.id] : chosen.filter((c) => c !== m.id))}
          />{' '}
          {m.name}
        </label>
      ))}
      {unknown.length > 0 && (
        <p className="muted">
          Also {unknown.length === 1 ? 'a monitor' : `${unknown.length} monitors`} no longer in this project.
        </p>
      )}
      {error !== undefined && (
        <small id={`${id}-error`} className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
};
