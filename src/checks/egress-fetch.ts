import got from 'got';
import type { EgressPolicy } from './egress.ts';

/** `fetch` as a library asks for it (openid-client's `customFetch`), made through the egress
 *  policy's agents: a request to a denied address is refused when connecting, as every other
 *  connection watchlog makes. No redirect is followed (the caller asks for `manual`). */
export const egressFetch =
  (egress: EgressPolicy, timeoutMs = 10_000) =>
  async (
    url: string,
    options: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
  ): Promise<Response> => {
    const body = options.body;
    const res = await got(url, {
      method: options.method as 'GET',
      headers: options.headers,
      ...(body === undefined || body === null
        ? {}
        : { body: body instanceof URLSearchParams ? body.toString() : (body as string | Buffer) }),
      agent: egress.agent,
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      responseType: 'buffer',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, String(value));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(res.rawBody), { status: res.statusCode, headers });
  };
