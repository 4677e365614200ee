import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, MONITORS_PER_PROJECT, call, type Monitor, type Verbatim, verbatim } from '../../api.ts';
import { ErrorNote, Field } from '../../components/ui.tsx';

/** SPEC 2.8 defaults; the server applies the same ones to a field left out. */
const DEFAULTS = { interval_seconds: '60', timeout_seconds: '10', expected_status: '200' };

interface Values {
  name: string;
  url: string;
  interval_seconds: string;
  timeout_seconds: string;
  expected_status: string;
  enabled: boolean;
}

const valuesOf = (m: Monitor | null): Values =>
  m === null
    ? { name: '', url: '', ...DEFAULTS, enabled: true }
    : {
        name: m.name,
        url: m.url,
        interval_seconds: String(m.interval_seconds),
        timeout_seconds: String(m.timeout_seconds),
        expected_status: String(m.expected_status),
        enabled: m.enabled,
      };

/** An empty number field is left out (the server's default on create, unchanged on edit); any
 *  other text is sent as it reads, so the server says what is wrong with it next to the field. */
const numberOf = (text: string): number | Verbatim | undefined => {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : verbatim(trimmed);
};

/** What a refusal means for the person filling the form, beyond the server's message. */
const refusal = (error: unknown): string | undefined => {
  if (error instanceof ApiError && error.status === 409) {
    return (
      `This project already has ${MONITORS_PER_PROJECT} monitors, the most a project may have. ` +
      'Delete one you no longer need to add another.'
    );
  }
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
  onDone: (saved: Monitor | null) => void;
}) => {
  const [values, setValues] = useState<Values>(() => valuesOf(editing));
  const queryClient = useQueryClient();
  const prefix = useId();
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
  }, []);

  const save = useMutation({
    mutationFn: async (v: Values) => {
      const body = {
        name: v.name,
        url: v.url.trim(),
        interval_seconds: numberOf(v.interval_seconds),
        timeout_seconds: numberOf(v.timeout_seconds),
        expected_status: numberOf(v.expected_status),
        enabled: v.enabled,
      };
      return editing === null
        ? call('POST /v1/monitors', { body: { project_id: projectId, ...body } })
        : call('PUT /v1/monitors/:id', { params: { id: editing.id }, body });
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['monitors'] });
      onDone(saved);
    },
  });

  const error = save.error instanceof ApiError ? save.error : null;
  const fieldError = (path: string) => error?.fieldMessage(path);
  const fields = ['name', 'url', 'interval_seconds', 'timeout_seconds', 'expected_status', 'enabled'];
  // Details at a field are shown there; the note above the buttons says the rest in words.
  const unplaced = error?.details.some((d) => !fields.includes(d.path)) ?? false;
  const id = (field: string) => `${prefix}-${field}`;
  const described = (field: string, hint = true) =>
    [hint ? `${id(field)}-hint` : '', fieldError(field) !== undefined ? `${id(field)}-error` : '']
      .filter(Boolean)
      .join(' ') || undefined;
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((v) => ({ ...v, [key]: value }));

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
          id={id('name')}
          label="Name"
          hint="Use the service_name your events carry: the monitor then shows beside that service."
          error={fieldError('name')}
        >
          <input
            id={id('name')}
            ref={first}
            value={values.name}
            onChange={(e) => set('name', e.target.value)}
            maxLength={255}
            required
            aria-invalid={fieldError('name') !== undefined}
            aria-describedby={described('name')}
          />
        </Field>
        <Field
          id={id('url')}
          label="URL"
          hint="http or https; checked with one GET, redirects not followed."
          error={fieldError('url')}
        >
          <input
            id={id('url')}
            type="url"
            inputMode="url"
            value={values.url}
            onChange={(e) => set('url', e.target.value)}
            placeholder="https://api.example.com/health"
            required
            aria-invalid={fieldError('url') !== undefined}
            aria-describedby={described('url')}
          />
        </Field>
        <Field
          id={id('interval_seconds')}
          label="Interval (s)"
          hint="10 to 86,400 seconds between checks; default 60."
          error={fieldError('interval_seconds')}
        >
          <input
            id={id('interval_seconds')}
            type="number"
            min={10}
            max={86_400}
            step={1}
            value={values.interval_seconds}
            onChange={(e) => set('interval_seconds', e.target.value)}
            aria-invalid={fieldError('interval_seconds') !== undefined}
            aria-describedby={described('interval_seconds')}
          />
        </Field>
        <Field
          id={id('timeout_seconds')}
          label="Timeout (s)"
          hint="1 to 120 seconds, at most the interval; default 10."
          error={fieldError('timeout_seconds')}
        >
          <input
            id={id('timeout_seconds')}
            type="number"
            min={1}
            max={120}
            step={1}
            value={values.timeout_seconds}
            onChange={(e) => set('timeout_seconds', e.target.value)}
            aria-invalid={fieldError('timeout_seconds') !== undefined}
            aria-describedby={described('timeout_seconds')}
          />
        </Field>
        <Field
          id={id('expected_status')}
          label="Expected status"
          hint="The status of a healthy answer; default 200."
          error={fieldError('expected_status')}
        >
          <input
            id={id('expected_status')}
            type="number"
            min={100}
            max={599}
            step={1}
            value={values.expected_status}
            onChange={(e) => set('expected_status', e.target.value)}
            aria-invalid={fieldError('expected_status') !== undefined}
            aria-describedby={described('expected_status')}
          />
        </Field>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={values.enabled}
          onChange={(e) => set('enabled', e.target.checked)}
          aria-describedby={fieldError('enabled') !== undefined ? `${id('enabled')}-error` : undefined}
        />{' '}
        Enabled (checked on its interval; a paused monitor keeps its history)
      </label>
      {fieldError('enabled') !== undefined && (
        <small id={`${id('enabled')}-error`} className="field-error" role="alert">
          {fieldError('enabled')}
        </small>
      )}
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
