import type { Incident, Monitor } from '../../api.ts';

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
