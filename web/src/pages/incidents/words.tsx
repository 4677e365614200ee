import type { Incident, Monitor } from '../../api.ts';
import { describedBy, type FieldErrors } from '../../components/form-errors.ts';
import { Field } from '../../components/ui.tsx';

/** How incidents' states and impacts read, in every incident screen. */

export type IncidentStatus = Incident['status'];
export type Impact = Incident['impact'];

export const STATUSES: Array<[IncidentStatus, string]> = [
  ['investigating', 'Investigating'],
  ['identified', 'Identified'],
  ['monitoring', 'Monitoring'],
  ['resolved', 'Resolved'],
];
export const IMPACTS: Array<[Impact, string]> = [
  ['none', 'None'],
  ['minor', 'Minor'],
  ['major', 'Major'],
  ['critical', 'Critical'],
];
export const statusText = (s: IncidentStatus) => STATUSES.find(([v]) => v === s)?.[1] ?? s;
export const impactText = (i: Impact) => IMPACTS.find(([v]) => v === i)?.[1] ?? i;

export const StatusBadge = ({ status }: { status: IncidentStatus }) => (
  <span className={`incident-status ${status}`}>{statusText(status)}</span>
);

export const ImpactBadge = ({ impact }: { impact: Impact }) => (
  <span className={`impact ${impact}`}>{impactText(impact)} impact</span>
);

/** The monitors an incident names, by name; none: the whole project. */
export const monitorNames = (ids: readonly string[], monitors: readonly Monitor[] | undefined): string =>
  ids.length === 0
    ? 'The whole project'
    : ids.map((id) => monitors?.find((m) => m.id === id)?.name ?? 'a deleted monitor').join(', ');

/** The status and impact choices of a new incident or an update; `keepImpact` (an update) offers
 *  leaving the incident's impact as it is, as the value `''`. */
export const StatusImpactFields = <I extends Impact | ''>(props: {
  id: (field: string) => string;
  errors: FieldErrors;
  status: IncidentStatus;
  onStatus: (status: IncidentStatus) => void;
  impact: I;
  onImpact: (impact: I) => void;
  keepImpact?: Impact;
}) => (
  <div className="row">
    <Field id={props.id('status')} label="Status" error={props.errors.at('status')}>
      <select
        id={props.id('status')}
        value={props.status}
        onChange={(e) => props.onStatus(e.target.value as IncidentStatus)}
      >
        {STATUSES.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </Field>
    <Field id={props.id('impact')} label="Impact" error={props.errors.at('impact')}>
      <select id={props.id('impact')} value={props.impact} onChange={(e) => props.onImpact(e.target.value as I)}>
        {props.keepImpact !== undefined && <option value="">Unchanged ({props.keepImpact})</option>}
        {IMPACTS.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  </div>
);

/** An incident update's message (the opening one says what `hint` asks for). */
export const MessageField = (props: {
  id: (field: string) => string;
  errors: FieldErrors;
  message: string;
  onMessage: (message: string) => void;
  hint?: string;
}) => {
  const id = props.id('message');
  const error = props.errors.at('message');
  return (
    <Field id={id} label="Message" hint={props.hint} error={error}>
      <textarea
        id={id}
        value={props.message}
        maxLength={10_000}
        onChange={(e) => props.onMessage(e.target.value)}
        aria-invalid={error !== undefined}
        aria-describedby={describedBy(id, props.hint !== undefined, error)}
      />
    </Field>
  );
};
