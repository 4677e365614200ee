import type { Call, Client } from './client.ts';
import { uuid } from './ids.ts';

export const REQUEST_ID_HEADER = 'X-Request-ID';

export const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** window.fetch, recording calls to the backends. A recorded call is sent as the Request that
 *  fetch itself would build from the same arguments, plus X-Request-ID (unless the page set one:
 *  then that is the request_id). Every other call gets the page's very arguments. The answer is
 *  the original's, settled the same way, a tick later. */
export const wrapFetch = (original: typeof fetch, client: Client): typeof fetch => {
  function fetch(this: unknown, ...args: [input: RequestInfo | URL, init?: RequestInit]): Promise<Response> {
    const [input, init] = args;
    let call: Call | undefined;
    let request: Request | undefined;
    let id: string | undefined;
    try {
      // Decided from the arguments alone: a Request built from a Request takes its body, which
      // must stay with the page's object on calls that are not recorded.
      const isRequest = input instanceof Request;
      call = client.begin(
        String(init?.method ?? (isRequest ? input.method : 'GET')),
        isRequest ? input.url : String(input),
      );
      if (call) {
        request = new Request(input, init);
        id = request.headers.get(REQUEST_ID_HEADER) ?? uuid();
        if (!request.headers.has(REQUEST_ID_HEADER)) request.headers.set(REQUEST_ID_HEADER, id);
      }
    } catch {
      // Arguments fetch will refuse: it refuses them below, exactly as without the SDK.
      request = undefined;
    }
    if (!call || !request) return Reflect.apply(original, this, args) as Promise<Response>;
    const started = call;
    return (Reflect.apply(original, this, [request]) as Promise<Response>).then(
      (res) => {
        client.end(started, id, res.status, undefined);
        return res;
      },
      (e: unknown) => {
        client.end(started, id, undefined, errorText(e));
        throw e;
      },
    );
  }
  Object.defineProperty(fetch, 'length', { value: original.length });
  return fetch;
};
