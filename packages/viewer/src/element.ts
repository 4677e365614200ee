import { type ListAnswer, type ListItem, ViewerError, viewerApi } from './api.ts';
import { renderDetail } from './detail.ts';
import { append, clear, h } from './dom.ts';
import { formatTime, statusFamily } from './format.ts';
import { METHODS, STATUS_CLASSES, type ViewerQuery, emptyQuery, exportParams, listParams } from './query.ts';
import { STYLES } from './styles.ts';

const DEFAULT_PAGE_SIZE = 25;

/** `<watchlog-audit-log token="…">`: a tenant's audit trail, searchable, filterable, with each
 *  event's detail and a CSV export of the events the search finds. `api-base` is watchlog's URL
 *  (default: this page's origin), `page-size` the rows a page (1 to 100, default 25). A refused
 *  token (expired, revoked) fires `watchlog-token-expired`; setting a new `token` starts again. */
export class WatchlogAuditLog extends HTMLElement {
  static readonly observedAttributes = ['token', 'api-base', 'page-size'];

  readonly #root: ShadowRoot;
  #query: ViewerQuery = emptyQuery(DEFAULT_PAGE_SIZE);
  #rows: ListItem[] = [];
  #selected: string | null = null;
  #inFlight: AbortController | null = null;
  #connected = false;
  readonly #status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  readonly #body = h('tbody');
  readonly #pageLabel = h('span');
  readonly #previous = h('button', { type: 'button' }, 'Previous page');
  readonly #next = h('button', { type: 'button' }, 'Next page');
  readonly #exportButton = h('button', { type: 'button' }, 'Export CSV');
  readonly #detail = h('div');
  readonly #form: HTMLFormElement;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#form = this.#toolbar();
    this.#previous.addEventListener('click', () => this.#go(this.#query.page - 1));
    this.#next.addEventListener('click', () => this.#go(this.#query.page + 1));
    this.#exportButton.addEventListener('click', () => void this.#export());
    this.#root.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key === 'Escape' && this.#selected !== null) this.#closeDetail();
    });
    this.#adoptStyles();
    append(
      this.#root,
      h(
        'div',
        { class: 'root', part: 'root' },
        this.#form,
        this.#status,
        h(
          'div',
          { class: 'scroll' },
          h(
            'table',
            { part: 'table' },
            h('caption', { class: 'visually-hidden' }, 'Audit log'),
            h('thead', {}, this.#headerRow()),
            this.#body,
          ),
        ),
        h('nav', { part: 'pager', 'aria-label': 'Pages' }, this.#previous, this.#pageLabel, this.#next),
        this.#detail,
      ),
    );
  }

  connectedCallback(): void {
    this.#connected = true;
    void this.#load();
  }

  disconnectedCallback(): void {
    this.#connected = false;
    this.#inFlight?.abort();
  }

  attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    if (before === after || !this.#connected) return;
    if (name === 'page-size') this.#query = { ...this.#query, page: 1 };
    this.#closeDetail(false);
    void this.#load();
  }

  /** Constructable style sheets are not inline styles: a host page whose CSP has no
   *  `'unsafe-inline'` for styles still styles the component. */
  #adoptStyles(): void {
    if (
      'adoptedStyleSheets' in this.#root &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype
    ) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLES);
      this.#root.adoptedStyleSheets = [sheet];
    } else append(this.#root, h('style', {}, STYLES));
  }

  get #pageSize(): number {
    const asked = Number(this.getAttribute('page-size'));
    return Number.isInteger(asked) && asked >= 1 && asked <= 100 ? asked : DEFAULT_PAGE_SIZE;
  }

  get #api() {
    const base = this.getAttribute('api-base') ?? globalThis.location?.origin ?? '';
    return viewerApi(base, this.getAttribute('token') ?? '');
  }

  #toolbar(): HTMLFormElement {
    const select = (name: string, label: string, options: readonly string[]) =>
      h(
        'label',
        {},
        label,
        h('select', { name }, h('option', { value: '' }, 'Any'), ...options.map((o) => h('option', { value: o }, o))),
      );
    const form = h(
      'form',
      { role: 'search', part: 'toolbar', 'aria-label': 'Search the audit log' },
      h(
        'label',
        { class: 'search' },
        'Search',
        h('input', { type: 'search', name: 'q', placeholder: 'path:/orders* -status:2xx "card declined"' }),
      ),
      select('method', 'Method', METHODS),
      select('status', 'Status', STATUS_CLASSES),
      h('label', {}, 'From', h('input', { type: 'datetime-local', name: 'from' })),
      h('label', {}, 'To', h('input', { type: 'datetime-local', name: 'to' })),
      h('button', { type: 'submit', class: 'primary' }, 'Search'),
      this.#exportButton,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const text = (name: string) => String(data.get(name) ?? '');
      this.#query = {
        ...this.#query,
        q: text('q'),
        method: text('method') as ViewerQuery['method'],
        status: text('status') as ViewerQuery['status'],
        from: text('from'),
        to: text('to'),
        page: 1,
      };
      this.#closeDetail(false);
      void this.#load();
    });
    return form;
  }

  #headerRow(): HTMLTableRowElement {
    const cell = (label: string, className = '') => h('th', { scope: 'col', class: className || null }, label);
    return h(
      'tr',
      {},
      cell('Time'),
      cell('Method'),
      cell('Path'),
      cell('Status'),
      cell('Identifier'),
      cell('E-mail', 'agent'),
      cell('Service', 'service'),
    );
  }

  #go(page: number): void {
    this.#query = { ...this.#query, page };
    this.#closeDetail(false);
    void this.#load();
  }

  async #load(): Promise<void> {
    if (!this.getAttribute('token')) {
      this.#say('No access token was given to the audit log.', true);
      return;
    }
    this.#inFlight?.abort();
    const controller = new AbortController();
    this.#inFlight = controller;
    this.#query = { ...this.#query, limit: this.#pageSize };
    this.#say('Loading…');
    try {
      const answer = await this.#api.list(listParams(this.#query), controller.signal);
      if (controller.signal.aborted) return;
      this.#show(answer);
    } catch (error) {
      if (!controller.signal.aborted) this.#failed(error);
    }
  }

  #show({ data, pagination }: ListAnswer): void {
    this.#rows = data;
    clear(this.#body);
    for (const item of data) append(this.#body, this.#row(item));
    const total = pagination.totalItems;
    this.#say(total === 0 ? 'No events match.' : `${total.toLocaleString()} event${total === 1 ? '' : 's'}`);
    this.#pageLabel.textContent = `Page ${pagination.page} of ${Math.max(1, pagination.totalPage)}`;
    this.#previous.disabled = pagination.page <= 1;
    this.#next.disabled = pagination.page >= pagination.totalPage;
    this.#exportButton.disabled = total === 0;
  }

  #row(item: ListItem): HTMLTableRowElement {
    const open = h('button', { type: 'button', class: 'open', 'data-id': item.id }, formatTime(item.timestamp));
    open.addEventListener('click', (event) => {
      event.stopPropagation();
      void this.#openDetail(item.id);
    });
    const row = h(
      'tr',
      { 'aria-selected': String(this.#selected === item.id) },
      h('td', {}, open),
      h('td', {}, item.method),
      h('td', { class: 'path', title: item.path }, item.path),
      h('td', {}, h('span', { class: `badge ${statusFamily(item.status_code)}` }, String(item.status_code ?? '—'))),
      h('td', {}, item.identifier),
      h('td', { class: 'agent' }, item.user_email ?? ''),
      h('td', { class: 'service' }, item.service_name),
    );
    row.addEventListener('click', () => void this.#openDetail(item.id));
    return row;
  }

  async #openDetail(id: string): Promise<void> {
    this.#selected = id;
    this.#markSelected();
    try {
      const event = await this.#api.detail(id);
      if (this.#selected !== id) return;
      this.#detail.replaceChildren(renderDetail(event, () => this.#closeDetail()));
      this.#root.getElementById('detail-heading')?.focus();
    } catch (error) {
      this.#failed(error);
    }
  }

  /** Closes the detail; with `refocus`, the focus goes back to the row it was opened from. */
  #closeDetail(refocus = true): void {
    const was = this.#selected;
    this.#selected = null;
    this.#detail.replaceChildren();
    this.#markSelected();
    if (refocus && was !== null)
      this.#root.querySelector<HTMLButtonElement>(`button.open[data-id="${CSS.escape(was)}"]`)?.focus();
  }

  #markSelected(): void {
    this.#rows.forEach((item, i) => {
      this.#body.children[i]?.setAttribute('aria-selected', String(item.id === this.#selected));
    });
  }

  async #export(): Promise<void> {
    this.#exportButton.disabled = true;
    try {
      const blob = await this.#api.exportCsv(exportParams(this.#query));
      const url = URL.createObjectURL(blob);
      const link = h('a', { href: url, download: `audit-log-${new Date().toISOString().slice(0, 10)}.csv` });
      this.#root.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#exportButton.disabled = this.#rows.length === 0;
    }
  }

  #failed(error: unknown): void {
    if (error instanceof ViewerError && error.status === 401) {
      this.#say('This access has expired. Reload the page to see the audit log again.', true);
      this.#body.replaceChildren();
      this.#rows = [];
      this.dispatchEvent(new CustomEvent('watchlog-token-expired', { bubbles: true, composed: true }));
      return;
    }
    this.#say(error instanceof Error ? `The audit log could not be read: ${error.message}` : String(error), true);
  }

  #say(text: string, isError = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('error', isError);
  }
}

/** Registers the element under its name, once (a page may load the bundle twice). */
export const defineAuditLog = (name = 'watchlog-audit-log'): void => {
  if (typeof customElements !== 'undefined' && customElements.get(name) === undefined)
    customElements.define(name, WatchlogAuditLog);
};
