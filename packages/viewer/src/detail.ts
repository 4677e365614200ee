import type { FullEvent } from './api.ts';
import { append, h } from './dom.ts';
import { detailFields, display, formatTime } from './format.ts';

const LABELS: Record<string, string> = {
  timestamp: 'Time',
  event_type: 'Type',
  method: 'Method',
  path: 'Path',
  status_code: 'Status',
  response_time: 'Response time (ms)',
  error_message: 'Error',
  identifier: 'Identifier',
  user_email: 'E-mail',
  user_name: 'Name',
  user_roles: 'Roles',
  user_type: 'User type',
  tenant_id: 'Tenant',
  service_name: 'Service',
  environment: 'Environment',
  ip: 'IP address',
  user_agent: 'User agent',
  request_id: 'Request id',
  session_id: 'Session id',
  source: 'Source',
  query_params: 'Query parameters',
  path_params: 'Path parameters',
  request_body: 'Request body',
};

const shown = (key: string, value: unknown): Node | string => {
  if (key === 'timestamp' && typeof value === 'string') return formatTime(value);
  if (typeof value === 'object' && value !== null) return h('pre', {}, display(value));
  return display(value);
};

/** The response body is put in the page only once the reader asks for it (SPEC 2.2: hidden until
 *  revealed), and hidden again on a second press. */
const responseBody = (event: FullEvent): HTMLElement | null => {
  if (!('response_body' in event) || event.response_body === null || event.response_body === undefined) return null;
  const holder = h('div', { id: 'response-body', part: 'response-body' });
  const reveal = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'response-body' });
  reveal.textContent = 'Reveal response body';
  reveal.addEventListener('click', () => {
    const open = reveal.getAttribute('aria-expanded') === 'true';
    reveal.setAttribute('aria-expanded', String(!open));
    reveal.textContent = open ? 'Reveal response body' : 'Hide response body';
    holder.replaceChildren(...(open ? [] : [h('pre', {}, display(event.response_body))]));
  });
  return h('div', { class: 'response' }, h('dt', {}, 'Response body'), h('dd', {}, reveal, holder));
};

/** One event's fields; `close` is called by its Close button (Escape is the element's). */
export const renderDetail = (event: FullEvent, close: () => void): HTMLElement => {
  const list = h('dl');
  for (const key of detailFields(event))
    append(list, h('dt', {}, LABELS[key] ?? key), h('dd', {}, shown(key, event[key])));
  const response = responseBody(event);
  if (response !== null) append(list, ...Array.from(response.childNodes));
  const title = [event.method, event.path].filter((part) => typeof part === 'string').join(' ') || 'Event';
  return h(
    'section',
    { class: 'detail', part: 'detail', 'aria-labelledby': 'detail-heading' },
    h(
      'header',
      {},
      h('h2', { id: 'detail-heading', tabindex: '-1' }, title),
      h('button', { type: 'button', onclick: close, 'aria-label': 'Close the event' }, 'Close'),
    ),
    h('p', { class: 'status' }, `Event ${event.id}`),
    list,
  );
};
