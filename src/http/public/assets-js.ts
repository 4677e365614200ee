/** The status page's live refresh (served by assets.ts under a hashed name): plain ES2020, no
 *  framework, no eval, nothing inline, so the page's CSP holds. While the tab is visible it asks
 *  for the page again every 1.5 s with the last ETag; a 304 costs a few bytes, a 200 brings the
 *  new `<main>`, swapped in place. Errors back off (doubling, up to a minute, with jitter); a
 *  hidden tab asks nothing until it is shown again. Without it the page is complete, only not
 *  live. Times are shown in the reader's zone (the server writes UTC). */
export const STATUS_JS_TEXT = `(() => {
  'use strict';
  const main = document.querySelector('main[data-version]');
  if (!main || typeof fetch !== 'function' || typeof DOMParser !== 'function') return;
  const EVERY = 1500;
  const LONGEST = 60000;
  const TIMEOUT = 10000;
  const live = document.getElementById('live');
  let etag = '"' + main.getAttribute('data-version') + '"';
  let failures = 0;
  let timer = 0;
  let busy = false;

  const format = new Intl.DateTimeFormat(undefined, {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short',
  });
  const localize = (root) => {
    for (const t of root.querySelectorAll('time[datetime]')) {
      const d = new Date(t.getAttribute('datetime'));
      if (!Number.isNaN(d.getTime())) t.textContent = format.format(d);
    }
  };

  // Focus is kept by what it was on (the nearest element with an id, the tag, the text), since
  // every node of <main> is new after a swap.
  const focusKey = () => {
    const a = document.activeElement;
    if (!a || a === main || !main.contains(a)) return null;
    const owner = a.closest('[id]');
    return { owner: owner && owner !== main ? owner.id : '', tag: a.tagName, text: a.textContent };
  };
  const refocus = (key) => {
    if (key === null) return;
    const scope = key.owner ? document.getElementById(key.owner) : main;
    const same = scope ? Array.from(scope.querySelectorAll(key.tag)).find((n) => n.textContent === key.text) : null;
    (same || main).focus({ preventScroll: true });
  };

  const swap = (next, doc) => {
    const version = next.getAttribute('data-version');
    if (version === main.getAttribute('data-version')) return;
    const before = main.querySelector('[data-banner]');
    const key = focusKey();
    const open = Array.from(main.querySelectorAll('details[open]'), (d) => d.closest('[id]'))
      .filter((n) => n !== null && n !== main)
      .map((n) => n.id);
    const x = window.scrollX;
    const y = window.scrollY;
    main.replaceChildren(...Array.from(next.childNodes, (n) => document.importNode(n, true)));
    main.setAttribute('data-version', version);
    for (const id of open) {
      const d = document.getElementById(id)?.querySelector('details');
      if (d) d.open = true;
    }
    localize(main);
    refocus(key);
    window.scrollTo(x, y);
    if (doc.title) document.title = doc.title;
    const after = main.querySelector('[data-banner]');
    const changed = after && (!before || before.getAttribute('data-banner') !== after.getAttribute('data-banner'));
    if (changed && live) live.textContent = 'Status changed: ' + after.textContent;
  };

  const wait = () => {
    if (failures === 0) return EVERY;
    const longer = Math.min(LONGEST, EVERY * 2 ** failures);
    return Math.round(longer * (0.5 + Math.random() / 2));
  };
  const schedule = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
  };

  async function tick() {
    timer = 0;
    if (busy || document.visibilityState !== 'visible') return;
    busy = true;
    const abort = new AbortController();
    const limit = setTimeout(() => abort.abort(), TIMEOUT);
    try {
      const res = await fetch(location.href, {
        headers: { 'If-None-Match': etag, Accept: 'text/html' },
        cache: 'no-store',
        credentials: 'same-origin',
        signal: abort.signal,
      });
      if (res.status === 200) {
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        const next = doc.querySelector('main[data-version]');
        if (!next) throw new Error('no <main data-version>');
        etag = res.headers.get('ETag') || '"' + next.getAttribute('data-version') + '"';
        swap(next, doc);
      } else if (res.status !== 304) {
        throw new Error('status ' + res.status);
      }
      failures = 0;
    } catch {
      failures += 1;
    } finally {
      clearTimeout(limit);
      busy = false;
    }
    if (document.visibilityState === 'visible') schedule(wait());
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') schedule(0);
    else clearTimeout(timer);
  });
  localize(main);
  schedule(EVERY);
})();
`;
