import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, type Incident } from '../../api.ts';
import { FormErrors } from '../../components/FormErrors.tsx';
import { MonitorChoice } from '../../components/MonitorChoice.tsx';
import { describedBy, fieldErrors } from '../../components/form-errors.ts';
import { Field } from '../../components/ui.tsx';
import { useProjectMonitors } from '../../hooks.ts';
import { type Impact, type IncidentStatus, MessageField, StatusImpactFields } from './words.tsx';

const SHOWN = ['title', 'status', 'impact', 'monitor_ids', 'message'];

/** Open an incident: its title, state, impact, the monitors it concerns (none: the whole project)
 *  and its first message. */
export const IncidentForm = ({
  projectId,
  onDone,
}: {
  projectId: string;
  onDone: (created: Incident | null) => void;
}) => {
  const prefix = useId();
  const client = useQueryClient();
  const monitors = useProjectMonitors(projectId);
  const first = useRef<HTMLInputElement>(null);
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<IncidentStatus>('investigating');
  const [impact, setImpact] = useState<Impact>('minor');
  const [monitorIds, setMonitorIds] = useState<string[]>([]);
  const [message, setMessage] = useState('');
  useEffect(() => first.current?.focus(), []);

  const create = useMutation({
    mutationFn: () =>
      call('POST /v1/incidents', {
        body: { project_id: projectId, title: title.trim(), status, impact, monitor_ids: monitorIds, message },
      }),
    onSuccess: async (incident) => {
      await client.invalidateQueries({ queryKey: ['incidents'] });
      onDone(incident);
    },
  });
  const errors = fieldErrors(create.error);
  const id = (f: string) => `${prefix}-${f}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel stack incident-form" onSubmit={submit} noValidate aria-label="Open an incident">
      <h2>Open an incident</h2>
      <Field id={id('title')} label="Title" error={errors.at('title')}>
        <input
          id={id('title')}
          ref={first}
          value={title}
          maxLength={200}
          onChange={(e) => setTitle(e.target.value)}
          aria-invalid={errors.at('title') !== undefined}
          aria-describedby={describedBy(id('title'), false, errors.at('title'))}
        />
      </Field>
      <StatusImpactFields
        id={id}
        errors={errors}
        status={status}
        onStatus={setStatus}
        impact={impact}
        onImpact={setImpact}
      />
      <MonitorChoice
        id={id('monitors')}
        legend="Monitors concerned"
        hint="None chosen: the incident concerns the whole project and shows on every one of its status pages."
        monitors={monitors.data ?? []}
        chosen={monitorIds}
        onChange={setMonitorIds}
        error={errors.under('monitor_ids')}
      />
      <MessageField
        id={id}
        errors={errors}
        message={message}
        onMessage={setMessage}
        hint="The first update readers see: what is wrong, who is affected."
      />
      <FormErrors error={create.error} errors={errors} shown={SHOWN} failed="The incident was not opened" />
      <div className="row">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Opening…' : 'Open incident'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
};
