import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, type Maintenance } from '../../api.ts';
import { FormErrors } from '../../components/FormErrors.tsx';
import { MonitorChoice } from '../../components/MonitorChoice.tsx';
import { describedBy, fieldErrors } from '../../components/form-errors.ts';
import { Field } from '../../components/ui.tsx';
import { useProjectMonitors } from '../../hooks.ts';
import { bodyOf, type Repeat, ruleOf, SHOWN, valuesOf, WEEKDAYS, type WindowValues } from './schedule.ts';
import { browserZone } from './zoned.ts';

const REPEATS: Array<[Repeat, string]> = [
  ['daily', 'Every day'],
  ['weekly', 'Every week, on chosen days'],
  ['monthly', 'Every month, on the day of the first start'],
  ['custom', 'A rule of my own (RRULE)'],
];

let zones: string[] | null = null;
const timeZones = (): string[] => {
  zones ??= Intl.supportedValuesOf('timeZone');
  return zones;
};

/** A maintenance window, one-off or recurring: POST for a new one, PUT (every field of its kind)
 *  for one that exists. */
export const MaintenanceForm = ({
  projectId,
  editing,
  onDone,
}: {
  projectId: string;
  editing: Maintenance | null;
  onDone: (saved: Maintenance | null) => void;
}) => {
  const prefix = useId();
  const client = useQueryClient();
  const monitors = useProjectMonitors(projectId);
  const [v, setValues] = useState<WindowValues>(() => valuesOf(editing));
  const set = (patch: Partial<WindowValues>) => setValues((x) => ({ ...x, ...patch }));
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const save = useMutation({
    mutationFn: (values: WindowValues) =>
      editing === null
        ? call('POST /v1/maintenances', { body: { project_id: projectId, ...bodyOf(values) } })
        : call('PUT /v1/maintenances/:id', { params: { id: editing.id }, body: bodyOf(values) }),
    onSuccess: async (saved) => {
      await client.invalidateQueries({ queryKey: ['maintenances'] });
      onDone(saved);
    },
  });
  const errors = fieldErrors(save.error);
  const id = (f: string) => `${prefix}-${f}`;
  const input = (
    field: 'title' | 'startsLocal' | 'endsLocal' | 'firstStart' | 'duration' | 'timezone' | 'rrule',
    path: string,
    label: string,
    hint?: string,
    extra: Record<string, string | number> = {},
  ) => (
    <Field id={id(field)} label={label} error={errors.at(path)} {...(hint === undefined ? {} : { hint })}>
      <input
        id={id(field)}
        ref={field === 'title' ? first : undefined}
        value={v[field]}
        onChange={(e) => set({ [field]: e.target.value })}
        aria-invalid={errors.at(path) !== undefined}
        aria-describedby={describedBy(id(field), hint !== undefined, errors.at(path))}
        {...extra}
      />
    </Field>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(v);
  };
  const title = editing === null ? 'Schedule maintenance' : `Edit maintenance ${editing.title}`;
  return (
    <form className="panel stack mt-form" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      {input('title', 'title', 'Title', undefined, { maxLength: 200 })}
      <Field id={id('description')} label="Description (optional)" error={errors.at('description')}>
        <textarea
          id={id('description')}
          value={v.description}
          maxLength={2000}
          onChange={(e) => set({ description: e.target.value })}
          aria-describedby={describedBy(id('description'), false, errors.at('description'))}
        />
      </Field>
      <fieldset className="mt-kind">
        <legend>When</legend>
        {(
          [
            ['once', 'Once'],
            ['recurring', 'Recurring'],
          ] as const
        ).map(([kind, text]) => (
          <label key={kind}>
            <input type="radio" name={id('kind')} checked={v.kind === kind} onChange={() => set({ kind })} /> {text}
          </label>
        ))}
      </fieldset>
      {v.kind === 'once' ? (
        <div className="mt-grid">
          {input('startsLocal', 'starts_at', 'Starts', `Your time (${browserZone()}).`, { type: 'datetime-local' })}
          {input('endsLocal', 'ends_at', 'Ends', 'At most 31 days after the start.', { type: 'datetime-local' })}
        </div>
      ) : (
        <>
          <div className="mt-grid">
            <Field id={id('repeat')} label="Repeats">
              <select id={id('repeat')} value={v.repeat} onChange={(e) => set({ repeat: e.target.value as Repeat })}>
                {REPEATS.map(([r, text]) => (
                  <option key={r} value={r}>
                    {text}
                  </option>
                ))}
              </select>
            </Field>
            {input('firstStart', 'starts_at', 'First start', 'As the clocks of the time zone below read it.', {
              type: 'datetime-local',
            })}
            {input('duration', 'duration_minutes', 'Duration (minutes)', 'Each occurrence; at most 10080 (7 days).', {
              type: 'number',
              min: 1,
              max: 10_080,
              inputMode: 'numeric',
            })}
            {input('timezone', 'timezone', 'Time zone', 'IANA name; the rule keeps its wall time across DST.', {
              list: id('zones'),
              autoComplete: 'off',
            })}
          </div>
          <datalist id={id('zones')}>
            {timeZones().map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          {v.repeat === 'weekly' && (
            <fieldset className="mt-days">
              <legend>On</legend>
              {WEEKDAYS.map(([day, name]) => (
                <label key={day}>
                  <input
                    type="checkbox"
                    checked={v.weekdays.includes(day)}
                    onChange={(e) =>
                      set({ weekdays: e.target.checked ? [...v.weekdays, day] : v.weekdays.filter((d) => d !== day) })
                    }
                  />{' '}
                  {name}
                </label>
              ))}
              <small className="muted">None chosen: the weekday of the first start.</small>
            </fieldset>
          )}
          {v.repeat === 'custom' ? (
            input(
              'rrule',
              'rrule',
              'RRULE',
              'RFC 5545, without DTSTART: FREQ=MONTHLY;BYDAY=1SU is the first Sunday of each month.',
              { placeholder: 'FREQ=WEEKLY;BYDAY=SU', spellCheck: 'false' },
            )
          ) : (
            <p className="muted small">
              Rule: <code>{ruleOf(v)}</code>
              {errors.at('rrule') !== undefined && (
                <small className="field-error" role="alert">
                  {' '}
                  {errors.at('rrule')}
                </small>
              )}
            </p>
          )}
        </>
      )}
      <fieldset className="mt-kind">
        <legend>Monitors</legend>
        <label>
          <input
            type="radio"
            name={id('every')}
            checked={v.everyMonitor}
            onChange={() => set({ everyMonitor: true })}
          />{' '}
          Every monitor of the project (and those added later)
        </label>
        <label>
          <input
            type="radio"
            name={id('every')}
            checked={!v.everyMonitor}
            onChange={() => set({ everyMonitor: false })}
          />{' '}
          Chosen monitors
        </label>
      </fieldset>
      {!v.everyMonitor && (
        <MonitorChoice
          id={id('monitors')}
          legend="Monitors under maintenance"
          monitors={monitors.data ?? []}
          chosen={v.monitorIds}
          onChange={(monitorIds) => set({ monitorIds })}
          error={errors.under('monitor_ids')}
        />
      )}
      {v.everyMonitor && errors.under('monitor_ids') !== undefined && (
        <small className="field-error" role="alert">
          {errors.under('monitor_ids')}
        </small>
      )}
      <p className="muted small">
        During a window checks run and are recorded, but a change of state notifies no one, uptime leaves those checks
        out, and status pages say "under maintenance".
      </p>
      <FormErrors
        error={save.error}
        errors={errors}
        shown={SHOWN}
        failed={editing === null ? 'The window was not scheduled' : 'The window was not saved'}
      />
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : editing === null ? 'Schedule' : 'Save changes'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
};
