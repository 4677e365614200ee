/** A random v4 UUID. `crypto.randomUUID` exists only in secure contexts (https, localhost), so a
 *  page served over plain http gets one from `getRandomValues`, which exists everywhere. */
export const uuid = (): string => {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export const SESSION_KEY = 'watchlog.session_id';

/** The tab's session id: kept in sessionStorage, so it survives reloads of the tab and is never
 *  shared with other tabs or later visits; in memory when storage is blocked or absent. */
let inMemory: string | undefined;

export const tabSessionId = (): string => {
  try {
    let id = sessionStorage.getItem(SESSION_KEY);
    if (!id) {
      id = uuid();
      sessionStorage.setItem(SESSION_KEY, id);
    }
    return id;
  } catch {
    inMemory ??= uuid();
    return inMemory;
  }
};
