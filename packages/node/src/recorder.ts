import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { captureObject, captureParams, type Size } from './capture.ts';
import type { Delivery } from './delivery.ts';
import {
  ENVIRONMENTS,
  LIMITS,
  SOFT_LIMITS,
  isStatusCode,
  truncate,
  type AuditEvent,
  type AuditMethod,
  type WireEvent,
} from './event.ts';
import { identityFields, runIdentify, type Identify, type IdentityFields } from './identity.ts';
import { methodPolicy } from './methods.ts';
import type { ResolvedOptions } from './options.ts';
import type { Reporter } from './report.ts';
import { generateRequestId, incomingRequestId } from './request-id.ts';

/** What an adapter learns while a request is handled. */
export interface Exchange {
  readonly start: number;
  readonly method: AuditMethod;
  readonly requestId: string;
  error?: { value: unknown };
  responseBody?: unknown;
  done: boolean;
}

/** What an adapter knows once the response is over. */
export interface Outcome {
  /** The response, read once it is over: status, whether it was completed. */
  res: Pick<ServerResponse, 'statusCode' | 'headersSent' | 'writableFinished'>;
  /** The route template, when the framework matched one. */
  route: string | undefined;
  /** The request URL (path and query), for the path when no route matched. */
  url: string | undefined;
  params: unknown;
  query: unknown;
  requestBody: unknown;
  ip: string | undefined;
  userAgent: string | string[] | undefined;
}

/** Where events go: the delivery queue, or what a test puts in its place. */
export type EventSink = Pick<Delivery, 'enqueue' | 'skippedMethod'>;

/** Status recorded for a request whose client left before any response was sent (nginx's
 *  convention): there was no status, and 200 would be a lie. */
export const CLIENT_CLOSED = 499;

export const pathOf = (url: string | undefined): string => {
  if (!url) return '/';
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const end = q === -1 ? (h === -1 ? url.length : h) : h === -1 ? q : Math.min(q, h);
  return end === 0 ? '/' : url.slice(0, end);
};

const messageOf = (error: unknown): string => {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === 'string') return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    return 'unknown error';
  }
};

/** Builds events from what adapters observe, shaped to pass the server's validation, and hands
 *  them to delivery. Nothing here may throw into the request path: adapters call it inside
 *  try/catch, and the parts that run later catch for themselves. */
export class Recorder {
  readonly #options: ResolvedOptions;
  readonly #delivery: EventSink;
  readonly #reporter: Reporter;
  readonly #method: (method: string | undefined) => AuditMethod | null;
  readonly #onIdentifyFailure: (error: unknown) => void;

  constructor(options: ResolvedOptions, delivery: EventSink, reporter: Reporter) {
    this.#options = options;
    this.#delivery = delivery;
    this.#reporter = reporter;
    this.#method = methodPolicy(options.unsupportedMethods);
    this.#onIdentifyFailure = (error) => reporter.identifyFailed(error);
  }

  get enabled(): boolean {
    return this.#options.enabled;
  }

  get captureResponseBody(): boolean {
    return this.#options.captureResponseBody;
  }

  /** Starts timing a request; null when its method is skipped. A request id the SDK generated
   *  is set on `res`. */
  begin(
    method: string | undefined,
    headers: IncomingHttpHeaders,
    res: { readonly headersSent: boolean; setHeader(name: string, value: string): unknown },
  ): Exchange | null {
    const start = performance.now();
    const recorded = this.#method(method);
    if (recorded === null) {
      this.#delivery.skippedMethod();
      return null;
    }
    let requestId = incomingRequestId(headers);
    if (requestId === undefined) {
      requestId = generateRequestId();
      if (this.#options.setRequestIdHeader && !res.headersSent) res.setHeader('X-Request-ID', requestId);
    }
    return { start, method: recorded, requestId, done: false };
  }

  /** Records the request once (adapters may hear of its end twice). */
  finish<Req>(exchange: Exchange, outcome: Outcome, identify: Identify<Req> | undefined, request: Req): void {
    if (exchange.done) return;
    exchange.done = true;
    const elapsed = performance.now() - exchange.start;
    if (!identify) {
      this.#enqueue(exchange, outcome, elapsed, { identifier: this.#options.anonymousIdentifier });
      return;
    }
    const result = runIdentify(identify, request, this.#options.identifyTimeoutMs, this.#onIdentifyFailure);
    const anonymous = this.#options.anonymousIdentifier;
    if (result instanceof Promise) {
      void result.then((value) => this.#enqueue(exchange, outcome, elapsed, identityFields(value, anonymous)));
    } else {
      this.#enqueue(exchange, outcome, elapsed, identityFields(result, anonymous));
    }
  }

  #enqueue(exchange: Exchange, outcome: Outcome, elapsed: number, identity: IdentityFields): void {
    try {
      const size: Size = { bytes: 0 };
      this.#delivery.enqueue(this.#event(exchange, outcome, elapsed, identity, size), size.bytes);
    } catch (error) {
      // A bug here must cost one event, not the application.
      this.#reporter.failed('failed', 1, `could not record an event (${messageOf(error)})`);
    }
  }

  #event(exchange: Exchange, outcome: Outcome, elapsed: number, identity: IdentityFields, size: Size): WireEvent {
    const o = this.#options;
    const { res } = outcome;
    // 'close' before 'finish': the client went away before the response was complete.
    const aborted = !res.writableFinished;
    const status = aborted && !res.headersSent ? CLIENT_CLOSED : res.statusCode;
    let errorMessage = exchange.error ? messageOf(exchange.error.value) : undefined;
    if (errorMessage === undefined && aborted)
      errorMessage = 'client closed the connection before the response was complete';
    const ua = Array.isArray(outcome.userAgent) ? outcome.userAgent[0] : outcome.userAgent;
    return {
      path: truncate(outcome.route || pathOf(outcome.url), LIMITS.path),
      method: exchange.method,
      status_code: isStatusCode(status) ? status : undefined,
      response_time: Math.max(0, Math.round(elapsed)),
      // Every field written, present or not: one object shape for every event, which is what
      // JSON.stringify and the property caches are fastest with.
      identifier: identity.identifier,
      user_email: identity.user_email,
      user_name: identity.user_name,
      user_roles: identity.user_roles,
      user_type: identity.user_type,
      tenant_id: identity.tenant_id,
      session_id: identity.session_id,
      service_name: o.serviceName,
      environment: o.environment,
      ip: outcome.ip && outcome.ip.length <= LIMITS.ip ? outcome.ip : undefined,
      user_agent: ua ? truncate(ua, SOFT_LIMITS.userAgent) : undefined,
      request_id: exchange.requestId,
      query_params: captureParams(outcome.query, o.maxBodyBytes, size),
      path_params: captureParams(outcome.params, o.maxBodyBytes, size),
      request_body: o.captureRequestBody ? captureObject(outcome.requestBody, o.maxBodyBytes, size) : undefined,
      response_body: o.captureResponseBody ? captureObject(exchange.responseBody, o.maxBodyBytes, size) : undefined,
      error_message: errorMessage === undefined ? undefined : truncate(errorMessage, SOFT_LIMITS.errorMessage),
      source: 'backend',
      // Assigned as the event is queued; every retry sends it again, so none stores it twice.
      idempotency_key: randomUUID(),
    };
  }

  /** A hand-made event (a job, a message handler): the same shaping and method policy. */
  record(input: RecordInput): void {
    try {
      const method = this.#method(input.method);
      if (method === null) {
        this.#delivery.skippedMethod();
        return;
      }
      const o = this.#options;
      const size: Size = { bytes: 0 };
      const event: WireEvent = {
        path: truncate(input.path || '/', LIMITS.path),
        method,
        status_code: isStatusCode(input.status_code) ? input.status_code : undefined,
        response_time:
          typeof input.response_time === 'number' && Number.isFinite(input.response_time)
            ? Math.max(0, Math.round(input.response_time))
            : undefined,
        ...identityFields(input, o.anonymousIdentifier),
        service_name:
          typeof input.service_name === 'string' && input.service_name.length > 0
            ? truncate(input.service_name, LIMITS.serviceName)
            : o.serviceName,
        environment:
          input.environment !== undefined && ENVIRONMENTS.includes(input.environment)
            ? input.environment
            : o.environment,
        ip: typeof input.ip === 'string' && input.ip.length <= LIMITS.ip ? input.ip : undefined,
        user_agent:
          typeof input.user_agent === 'string' ? truncate(input.user_agent, SOFT_LIMITS.userAgent) : undefined,
        request_id:
          typeof input.request_id === 'string' && input.request_id.length > 0
            ? truncate(input.request_id, LIMITS.requestId)
            : undefined,
        query_params: captureParams(input.query_params, o.maxBodyBytes, size),
        path_params: captureParams(input.path_params, o.maxBodyBytes, size),
        request_body: captureObject(input.request_body, o.maxBodyBytes, size),
        response_body: captureObject(input.response_body, o.maxBodyBytes, size),
        error_message:
          typeof input.error_message === 'string' ? truncate(input.error_message, SOFT_LIMITS.errorMessage) : undefined,
        source: input.source === 'browser' ? 'browser' : 'backend',
        idempotency_key: randomUUID(),
      };
      this.#delivery.enqueue(event, size.bytes);
    } catch (error) {
      this.#reporter.failed('failed', 1, `could not record an event (${messageOf(error)})`);
    }
  }
}

/** An event for `record()`: SPEC 2.1's fields, with the service, environment and identifier
 *  defaulted from the options, and any method (the `unsupportedMethods` policy applies). */
export type RecordInput = Omit<AuditEvent, 'method' | 'identifier' | 'service_name' | 'environment'> & {
  method: string;
  identifier?: string;
  service_name?: string;
  environment?: AuditEvent['environment'];
};
