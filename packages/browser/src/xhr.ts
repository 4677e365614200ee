import type { Client } from './client.ts';
import { REQUEST_ID_HEADER } from './fetch.ts';
import { uuid } from './ids.ts';

interface Opened {
  method: string;
  url: string;
  /** The page's own X-Request-ID, when it set one. */
  pageId?: string;
  /** Removes the outcome listeners of the call in progress. */
  detach?: () => void;
}

const OUTCOMES: Record<string, string | undefined> = {
  load: undefined,
  error: 'network error',
  abort: 'aborted',
  timeout: 'timed out',
};

/** Patches XMLHttpRequest.prototype's open, setRequestHeader and send (so `instanceof`, subclasses
 *  and instances made before init() all keep working) and returns the undo. Only listeners on the
 *  xhr itself are added: one on xhr.upload would make the browser preflight a request that
 *  needed none. */
export const wrapXhr = (proto: XMLHttpRequest, client: Client): (() => void) => {
  const { open, setRequestHeader, send } = proto;
  const opened = new WeakMap<XMLHttpRequest, Opened>();
  const patched: Pick<XMLHttpRequest, 'open' | 'setRequestHeader' | 'send'> = {
    open(this: XMLHttpRequest, ...args: [method: string, url: string | URL, ...rest: unknown[]]) {
      // First: arguments open() refuses leave the xhr as it was, and so they leave our record of it.
      Reflect.apply(open, this, args);
      const [method, url] = args;
      // open() ends a call in progress without an event: its listeners must not see the next one.
      opened.get(this)?.detach?.();
      opened.set(this, { method: String(method), url: String(url) });
    },
    setRequestHeader(this: XMLHttpRequest, ...args: [name: string, value: string]) {
      Reflect.apply(setRequestHeader, this, args);
      const [name, value] = args;
      const s = opened.get(this);
      if (s && String(name).toLowerCase() === REQUEST_ID_HEADER.toLowerCase())
        s.pageId = s.pageId === undefined ? String(value) : `${s.pageId}, ${value}`;
    },
    send(this: XMLHttpRequest, ...args: [body?: Document | XMLHttpRequestBodyInit | null]) {
      try {
        const s = opened.get(this);
        const call = s && this.readyState === 1 ? client.begin(s.method, s.url) : undefined;
        if (s && call) {
          const id = s.pageId ?? uuid();
          if (s.pageId === undefined) Reflect.apply(setRequestHeader, this, [REQUEST_ID_HEADER, id]);
          const onEnd = (e: Event) => {
            s.detach?.();
            client.end(call, id, e.type === 'load' ? this.status : undefined, OUTCOMES[e.type]);
          };
          s.detach = () => {
            for (const type in OUTCOMES) this.removeEventListener(type, onEnd);
            s.detach = undefined;
          };
          for (const type in OUTCOMES) this.addEventListener(type, onEnd);
        }
      } catch {
        // never into the page: its send() goes ahead, and fails as it would have
      }
      return Reflect.apply(send, this, args) as undefined;
    },
  };
  // Each keeps the length of the method it stands for, as the fetch wrapper does.
  Object.defineProperty(patched.open, 'length', { value: open.length });
  Object.defineProperty(patched.setRequestHeader, 'length', { value: setRequestHeader.length });
  Object.defineProperty(patched.send, 'length', { value: send.length });
  Object.assign(proto, patched);
  return () => {
    // Only our own functions are put back: a wrapper installed after ours stays (ours then passes
    // every call through, the client being stopped).
    if (proto.open === patched.open) proto.open = open;
    if (proto.setRequestHeader === patched.setRequestHeader) proto.setRequestHeader = setRequestHeader;
    if (proto.send === patched.send) proto.send = send;
  };
};
