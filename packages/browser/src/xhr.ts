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
    open(this: XMLHttpRequest, method: string, url: string | URL) {
      // First: arguments open() refuses leave the xhr as it was, and so they leave our record of it.
      // eslint-disable-next-line prefer-rest-params
      Reflect.apply(open, this, arguments);
      // open() ends a call in progress without an event: its listeners must not see the next one.
      opened.get(this)?.detach?.();
      opened.set(this, { method: String(method), url: String(url) });
    },
    setRequestHeader(this: XMLHttpRequest, name: string, value: string) {
      // eslint-disable-next-line prefer-rest-params
      Reflect.apply(setRequestHeader, this, arguments);
      const s = opened.get(this);
      if (s && String(name).toLowerCase() === REQUEST_ID_HEADER.toLowerCase())
        s.pageId = s.pageId === undefined ? String(value) : `${s.pageId}, ${value}`;
    },
    send(this: XMLHttpRequest) {
      try {
        const s = opened.get(this);
        const call = s && this.readyState === 1 ? client.begin(s.method, s.url) : undefined;
        if (s && call) {
          const id = s.pageId ?? uuid();
          if (s.pageId === undefined) Reflect.apply(setRequestHeader, this, [REQUEST_ID_HEADER, id]);
          const xhr = this;
          const onEnd = (e: Event) => {
            s.detach?.();
            client.end(call, id, e.type === 'load' ? xhr.status : undefined, OUTCOMES[e.type]);
          };
          s.detach = () => {
            for (const type in OUTCOMES) xhr.removeEventListener(type, onEnd);
            s.detach = undefined;
          };
          for (const type in OUTCOMES) xhr.addEventListener(type, onEnd);
        }
      } catch {
        // never into the page: its send() goes ahead, and fails as it would have
      }
      // eslint-disable-next-line prefer-rest-params
      return Reflect.apply(send, this, arguments) as void;
    },
  };
  Object.assign(proto, patched);
  return () => {
    // Only our own functions are put back: a wrapper installed after ours stays (ours then passes
    // every call through, the client being stopped).
    if (proto.open === patched.open) proto.open = open;
    if (proto.setRequestHeader === patched.setRequestHeader) proto.setRequestHeader = setRequestHeader;
    if (proto.send === patched.send) proto.send = send;
  };
};
