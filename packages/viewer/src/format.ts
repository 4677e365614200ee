/** How values read on screen. */

const time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export const formatTime = (iso: string): string => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : time.format(at);
};

/** A CSS class of a status code's family: 2xx `ok`, 3xx `moved`, 4xx `refused`, 5xx `failed`. */
export const statusFamily = (code: number | null): string => {
  if (code === null) return 'none';
  if (code >= 500) return 'failed';
  if (code >= 400) return 'refused';
  if (code >= 300) return 'moved';
  return 'ok';
};

/** A field's value as text: objects and arrays as indented JSON. */
export const display = (value: unknown): string => {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
};

/** The detail's field order: what says what happened first, the bodies last. */
export const DETAIL_ORDER = [
  'timestamp',
  'event_type',
  'method',
  'path',
  'status_code',
  'response_time',
  'error_message',
  'identifier',
  'user_email',
  'user_name',
  'user_roles',
  'user_type',
  'tenant_id',
  'service_name',
  'environment',
  'ip',
  'user_agent',
  'request_id',
  'session_id',
  'source',
  'query_params',
  'path_params',
  'request_body',
];

/** Fields the detail never lists: the id is in the heading; response_body waits for Reveal. */
export const NOT_LISTED = new Set(['id', 'response_body']);

export const detailFields = (event: Record<string, unknown>): string[] => {
  const rest = Object.keys(event)
    .filter((key) => !DETAIL_ORDER.includes(key) && !NOT_LISTED.has(key))
    .sort();
  return [...DETAIL_ORDER.filter((key) => key in event), ...rest];
};
