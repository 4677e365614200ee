import { LIMITS, truncate } from './event.ts';

/** Who made the request, as the application knows it. Field names are the event's (SPEC 2.1). */
export interface Identity {
  /** User or client id; at most 100 characters are sent. Empty or absent: `anonymousIdentifier`. */
  identifier?: string;
  user_email?: string;
  user_name?: string;
  user_roles?: string[];
  user_type?: string;
  tenant_id?: string;
  session_id?: string;
}

/** A string is shorthand for `{ identifier }`. */
export type IdentifyResult = Identity | string | null | undefined;

/** Called once per recorded request, after the response was sent (so authentication middleware
 *  has run), with the framework's request object: Express `req`, Koa `ctx`, Fastify `request`,
 *  node:http `req`. It may be async. If it throws, rejects or takes longer than
 *  `identifyTimeoutMs`, the event is recorded as anonymous. */
export type Identify<Req> = (request: Req) => IdentifyResult | PromiseLike<IdentifyResult>;

/** The identity fields of an event, each checked: a wrong type is left out rather than sent
 *  for the server to refuse the whole event. */
export interface IdentityFields extends Identity {
  identifier: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

export const identityFields = (result: IdentifyResult, anonymous: string): IdentityFields => {
  if (typeof result === 'string')
    return { identifier: result.length > 0 ? truncate(result, LIMITS.identifier) : anonymous };
  if (typeof result !== 'object' || result === null) return { identifier: anonymous };
  const id = str(result.identifier);
  const out: IdentityFields = { identifier: id ? truncate(id, LIMITS.identifier) : anonymous };
  const email = str(result.user_email);
  // A cut e-mail address is a wrong one: left out instead.
  if (email && email.length <= LIMITS.userEmail) out.user_email = email;
  const name = str(result.user_name);
  if (name) out.user_name = name;
  if (Array.isArray(result.user_roles))
    out.user_roles = result.user_roles.filter((r): r is string => typeof r === 'string');
  const type = str(result.user_type);
  if (type) out.user_type = type;
  const tenant = str(result.tenant_id);
  if (tenant) out.tenant_id = tenant;
  // A cut session id still groups the same requests together.
  const session = str(result.session_id);
  if (session) out.session_id = truncate(session, LIMITS.sessionId);
  return out;
};

const isThenable = (v: unknown): v is PromiseLike<IdentifyResult> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** Runs the resolver without letting it fail anything: `onFailure` hears of a throw, rejection
 *  or timeout, and the result is then undefined (anonymous). Sync resolvers stay synchronous. */
export const runIdentify = <Req>(
  identify: Identify<Req>,
  request: Req,
  timeoutMs: number,
  onFailure: (error: unknown) => void,
): IdentifyResult | Promise<IdentifyResult> => {
  let result: IdentifyResult | PromiseLike<IdentifyResult>;
  try {
    result = identify(request);
  } catch (error) {
    onFailure(error);
    return undefined;
  }
  if (!isThenable(result)) return result;
  const pending = result;
  return new Promise<IdentifyResult>((resolve) => {
    let settled = false;
    const succeed = (value: IdentifyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      onFailure(error);
      resolve(undefined);
    };
    const timer = setTimeout(() => fail(new Error(`identify() did not settle within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    try {
      pending.then(succeed, fail);
    } catch (error) {
      fail(error);
    }
  });
};
