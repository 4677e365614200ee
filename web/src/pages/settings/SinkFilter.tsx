import { useState } from 'react';
import type { Operations } from '../../api.ts';
import { Field } from '../../components/ui.tsx';

/** What a sink forwards: its event types and services (none chosen: all of them). */
export type SinkFilter = NonNullable<Operations['POST /v1/projects/:id/sinks']['body']['filter']>;
type EventType = NonNullable<SinkFilter['event_type']>[number];

const EVENT_TYPES: EventType[] = [
  'http',
  'system.access',
  'system.alert',
  'system.healthcheck.down',
  'system.healthcheck.up',
  'system.healthcheck.certificate_expiring',
  'system.maintenance.started',
  'system.maintenance.ended',
];

export const words = (text: string) =>
  text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');

/** The filter as the form holds it: the event types ticked and the services as typed. */
export const useFilter = (initial: SinkFilter = {}) => {
  const [eventTypes, setEventTypes] = useState<EventType[]>(initial.event_type ?? []);
  const [services, setServices] = useState((initial.service_name ?? []).join(', '));
  return {
    eventTypes,
    setEventTypes,
    services,
    setServices,
    /** As the API takes it: an empty part left out. */
    value: (): SinkFilter => ({
      ...(eventTypes.length > 0 ? { event_type: eventTypes } : {}),
      ...(words(services).length > 0 ? { service_name: words(services) } : {}),
    }),
    reset: () => {
      setEventTypes([]);
      setServices('');
    },
  };
};

export const FilterFields = ({
  idPrefix,
  filter,
  error,
}: {
  idPrefix: string;
  filter: ReturnType<typeof useFilter>;
  error: string | undefined;
}) => (
  <>
    <fieldset className="st-events">
      <legend>Forward (none chosen: every event type)</legend>
      {EVENT_TYPES.map((e) => (
        <label key={e} htmlFor={`${idPrefix}-event-${e}`}>
          <input
            id={`${idPrefix}-event-${e}`}
            type="checkbox"
            checked={filter.eventTypes.includes(e)}
            onChange={(ev) =>
              filter.setEventTypes((list) => (ev.target.checked ? [...list, e] : list.filter((x) => x !== e)))
            }
          />{' '}
          {e}
        </label>
      ))}
    </fieldset>
    <Field
      id={`${idPrefix}-services`}
      label="Services (optional)"
      hint="Separated by commas; empty: every service"
      error={error}
    >
      <input id={`${idPrefix}-services`} value={filter.services} onChange={(e) => filter.setServices(e.target.value)} />
    </Field>
  </>
);
