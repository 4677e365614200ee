import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type Answer, ApiError, call, type Monitor } from '../../api.ts';
import { ErrorNote, Field } from '../../components/ui.tsx';
import { AdvancedFields } from './AdvancedFields.tsx';
import { AssertionBuilder } from './AssertionBuilder.tsx';
import { CheckField, makeKit } from './field-kit.tsx';
import { bodyOf, type Kind, KINDS, placedPaths, SOURCES, type Values, valuesOf } from './form-values.ts';
import { KindFields } from './KindFields.tsx';

/** What POST answers: the monitor, and a heartbeat monitor's URL (this once). */
export type SavedMonitor = Answer<'POST /v1/monitors'>;

/** The fields under "Advanced": it opens by itself when one is set or the server faults one. */
const ADVANCED = [
  'method',
  'headers',
  'body',
  'content_type',
  'auth',
  'max_redirects',
  'ignore_tls_errors',
  'accepted_statuses',
  'down_after',
  'up_after',
  'retry_interval_seconds',
  'cert_expiry_warn_days',
];
/** The certificate warnings a monitor made with the form gets by default (docs/monitors.md). */
const DEFAULT_WARN_DAYS = '[14,7,1]';
const advancedSet = (m: Monitor | null) =>
  m !== null &&
  ADVANCED.some((k) => {
    const value = (m as unknown as Record<string, unknown>)[k];
    return value !== undefined && !(k === 'cert_expiry_warn_days' && JSON.stringify(value) === DEFAULT_WARN_DAYS);
  });

/** What a refusal means for the person filling the form, beyond the server's message. */
const refusal = (error: unknown): string | undefined => {
  if (error instanceof ApiError && error.status === 409) return 'Delete a monitor you no longer need to add another.';
  if (error instanceof ApiError && error.status === 403) return 'Your role may read monitors but not change them.';
  return undefined;
};

/** Adds a monitor (`editing` null) or edits one; the server's 400 details appear at their fields. */
export const MonitorForm = ({
  projectId,
  editing,
  onDone,
}: {
  projectId: string;
  editing: Monitor | null;
  onDone: (saved: SavedMonitor | null) => void;
}) => {
  const [values, setValues] = useState<Values>(() => valuesOf(editing));
  const [advanced, setAdvanced] = useState(() => advancedSet(editing));
  const queryClient = useQueryClient();
  const prefix = useId();
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
  }, []);

  const save = useMutation({
    mutationFn: async (v: Values): Promise<SavedMonitor> =>
      editing === null
        ? call('POST /v1/monitors', { body: { project_id: projectId, ...bodyOf(v, null) } })
        : call('PUT /v1/monitors/:id', { params: { id: editing.id }, body: bodyOf(v, editing) }),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['monitors'] });
      onDone(saved);
    },
    onError: (error) => {
      const faulted = error instanceof ApiError ? error.details.map((d) => d.path.split('.')[0]) : [];
      if (faulted.some((f) => f === 'auth' || ADVANCED.includes(f ?? ''))) setAdvanced(true);
    },
  });

  const error = save.error instanceof ApiError ? save.error : null;
  const set = (patch: Partial<Values>) => setValues((v) => ({ ...v, ...patch }));
  const kit = makeKit(prefix, error, values, set);
  // Details at a field are shown there; the note above the buttons says the rest in words.
  const placed = placedPaths(values);
  const unplaced =
    error?.details.some(
      (d) => !placed.exact.includes(d.path) && !placed.prefix.some((p) => d.path === p || d.path.startsWith(`${p}.`)),
    ) ?? false;
  const changeKind = (type: Kind) =>
    set({ type, assertions: values.assertions.filter((a) => SOURCES[type].includes(a.source)) });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(values);
  };

  const title = editing === null ? 'Add monitor' : `Edit monitor ${editing.name}`;
  return (
    <form className="panel stack monitor-form" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <div className="monitor-form-grid">
        <Field
          id={kit.id('name')}
          label="Name"
          hint="Use the service_name your events carry: the monitor then shows beside that service."
          error={kit.error('name')}
        >
          <input
            id={kit.id('name')}
            ref={first}
            value={values.name}
            onChange={(e) => set({ name: e.target.value })}
            maxLength={255}
            required
            aria-invalid={kit.error('name') !== undefined}
            aria-describedby={kit.described('name')}
          />
        </Field>
        <Field
          id={kit.id('type')}
          label="Kind"
          hint={editing === null ? 'What is checked.' : 'A monitor keeps its kind: add another for a new kind.'}
          error={kit.error('type')}
        >
          <select
            id={kit.id('type')}
            value={values.type}
            disabled={editing !== null}
            onChange={(e) => changeKind(e.target.value as Kind)}
            aria-describedby={kit.described('type')}
          >
            {KINDS.map(([kind, text]) => (
              <option key={kind} value={kind}>
                {text}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <KindFields kit={kit} />
      <CheckField kit={kit} field="enabled">
        Enabled ({values.type === 'heartbeat' ? 'beats are awaited' : 'checked on its interval'}; a paused monitor keeps
        its history)
      </CheckField>
      <AssertionBuilder kit={kit} />
      <details className="monitor-advanced" open={advanced} onToggle={(e) => setAdvanced(e.currentTarget.open)}>
        <summary>Advanced</summary>
        {advanced && <AdvancedFields kit={kit} />}
      </details>
      {save.error !== null && (error === null || error.details.length === 0 || unplaced) && (
        <>
          <ErrorNote
            error={save.error}
            title={editing === null ? 'The monitor was not added' : 'The monitor was not saved'}
          />
          {refusal(save.error) !== undefined && <p>{refusal(save.error)}</p>}
        </>
      )}
      {error !== null && error.details.length > 0 && !unplaced && (
        <p className="field-error" role="status">
          Not saved: correct the fields marked above.
        </p>
      )}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : editing === null ? 'Add monitor' : 'Save changes'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
};
