import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { notFound } from '../../domain/errors.ts';
import type { ActiveKey } from '../../views/access/port.ts';
import {
  type Principal,
  apiKeyOf,
  principalOf,
  commandContext,
  keyPrincipal,
  metricsTokenOf,
  requireKeyScope,
  requireRole,
  visibleOr404,
} from '../middleware/auth.ts';
import { type BodyReading, FORM, readBody, readJsonBody } from '../middleware/body.ts';
import { HttpError, decodeOrThrow, validationError } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { AppState } from '../state.ts';
import { answerProblems } from './answer-check.ts';
import type { Answers, AnyOperation, Handler, Reply, Table, TableHandlers } from './operation.ts';
import { RESOURCE_NAMES, type ResourceLoaders } from './resources.ts';
import { looksLikeViewerToken, verifyViewerToken, viewerPrincipal } from '../middleware/viewer-auth.ts';
import { enrolmentPrincipal, looksLikeEnrolmentToken, verifyFactorToken } from '../middleware/factor-tokens.ts';

/** The one way a route comes to exist: each operation of the table is mounted with its handler,
 *  and everything its declaration says is applied before the handler runs, in this order:
 *  1. the JWT (401), or an API key in its stead, with the scope the operation takes (401, 403);
 *  2. the query: each parameter given once and valid, none unknown, then the rules between them (400);
 *  3. an API key or the metrics token (401; 403 for a key used from an origin it may not be);
 *  4. a `project_id` parameter names a project the caller sees (404);
 *  5. the resource `:id` names, among those the caller sees (404);
 *  6. the caller's role (403), unless it depends on the path (`orSelf`);
 *  7. the other path parameters (404), then a role that depends on them (403);
 *  8. declared request headers (400);
 *  9. the body: its media type, size and pace (415, 413, 408), JSON (400), codec (400), checks
 *     beyond its shape (400), and the project its `project_id` names (404).
 *  The handler's reply is then the answer; in tests and development its JSON body is checked
 *  against the codec declared for its status first (a mismatch is a 500 that says why). */

export interface MountDeps extends BodyReading {
  /** koa-jwt and the principal's decoding, for `jwt` operations. */
  readonly jwt?: readonly Middleware<AppState>[];
  readonly resources?: ResourceLoaders;
  /** The active key an API key names, for `api-key` operations, and `jwt` ones a key may be
   *  sent to (without it, those take a JWT only). */
  readonly activeKey?: (key: string) => Promise<ActiveKey | null>;
  /** Told of each request a key authenticated that was answered without an error (to record the
   *  key's use, throttled), with the request's id. */
  readonly keyUsed?: (key: ActiveKey, correlationId: string) => void;
  /** The key viewer tokens are signed with; absent, a viewer token is refused like any bad JWT. */
  readonly viewerKey?: Buffer;
  /** The key enrolment tokens are signed with; absent, one is refused like any bad JWT. */
  readonly factorKey?: Buffer;
  /** For `metrics-token` operations; absent, they take no token. */
  readonly metricsToken?: string;
  /** For body checks: why the egress policy refuses a URL whose host is a literal address. */
  readonly literalRefusal?: (url: string) => string | null;
  readonly now: () => Date;
  /** Check each JSON answer against its codec (tests, development). */
  readonly checkAnswers?: boolean;
  readonly logger: Logger;
}

export interface Mounted {
  /** The router's dispatch: the only middleware that serves operations. */
  readonly routes: Middleware<AppState>;
  /** For requests no route took, as @koa/router answers them (405, OPTIONS). */
  readonly allowedMethods: Middleware<AppState>;
}

/** Which operations to mount: all, or those served only when configured when they are. */
export interface MountOptions {
  readonly metrics: boolean;
}

const pathParamsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** A static path registered after a parametrised one that matches it would never be reached. */
const shadowedBy = (earlier: AnyOperation, later: AnyOperation): boolean =>
  earlier.method === later.method &&
  pathParamsOf(earlier.path).length > 0 &&
  new RegExp(`^${earlier.path.replace(/:\w+/g, '[^/]+')}$`).test(later.path);

export const mount = <T extends Table, D>(
  table: T,
  handlers: TableHandlers<T, D>,
  deps: D,
  mountDeps: MountDeps,
  options: MountOptions = { metrics: true },
): Mounted => {
  // One router: each extra router would match every request's path again.
  const router = new Router<AppState>();
  const mounted: AnyOperation[] = [];
  for (const [group, operations] of Object.entries(table)) {
    for (const [name, op] of Object.entries(operations)) {
      if (op.servedBy === 'metrics' && !options.metrics) continue;
      const handler = (handlers[group] as Record<string, Handler<AnyOperation, D>> | undefined)?.[name];
      if (handler === undefined)
        throw new Error(`${op.method.toUpperCase()} ${op.path} (${group}.${name}) has no handler`);
      const shadow = mounted.find((earlier) => shadowedBy(earlier, op));
      if (shadow)
        throw new Error(
          `${op.method.toUpperCase()} ${op.path} is mounted after ${shadow.path}, which takes its requests`,
        );
      checkDeclaration(op, mountDeps);
      mounted.push(op);
      const serve = serving(op, handler, deps, mountDeps);
      router[op.method](op.path, ...(op.auth === 'jwt' ? [signedIn(op, mountDeps)] : []), serve);
    }
  }
  return {
    routes: router.routes() as unknown as Middleware<AppState>,
    allowedMethods: router.allowedMethods({ throw: true }) as unknown as Middleware<AppState>,
  };
};

/** Refuses, at start-up, a declaration `mount` could not apply. */
const checkDeclaration = (op: AnyOperation, deps: MountDeps): void => {
  const name = `${op.method.toUpperCase()} ${op.path}`;
  for (const param of pathParamsOf(op.path)) {
    const declared = (param === 'id' && op.resource !== undefined) || op.params?.[param] !== undefined;
    if (!declared) throw new Error(`${name}: the path parameter ${param} is not declared`);
  }
  if (op.resource !== undefined && op.auth !== 'jwt')
    throw new Error(`${name}: a resource is looked up for a signed-in caller`);
  if ((op.auth === 'api-key' || op.auth === 'api-key-or-query') && op.keyScope === undefined)
    throw new Error(`${name}: an API key operation names the scope it takes`);
  const needs: Array<[boolean, unknown, string]> = [
    [op.auth === 'jwt', deps.jwt, 'jwt'],
    [op.auth === 'api-key' || op.auth === 'api-key-or-query', deps.activeKey, 'activeKey'],
    [op.auth === 'jwt', deps.resources, 'resources'],
    [op.body?.check !== undefined, deps.literalRefusal, 'literalRefusal'],
  ];
  for (const [needed, given, what] of needs)
    if (needed && given === undefined) throw new Error(`${name} needs ${what}`);
};

/** A `jwt` operation's authentication. A viewer token (`typ: viewer`) is checked first, with a
 *  key of its own. A request with `X-API-Key` and no `Authorization` is the key's: active and
 *  unexpired (401), with the scope the operation takes (403), it stands in for a sign-in to its
 *  own project. Any other request goes through the JWT's middleware. */
const signedIn = (op: AnyOperation, m: MountDeps): Middleware<AppState> => {
  const jwt = m.jwt!;
  const byJwt: Middleware<AppState> = (ctx, next) =>
    jwt.reduceRight<() => Promise<unknown>>((rest, middleware) => () => middleware(ctx, rest), next)();
  const name = `${op.method.toUpperCase()} ${op.path}`;
  const viewerKey = m.viewerKey;
  const activeKey = m.activeKey;
  return async (ctx, next) => {
    if (viewerKey !== undefined && asViewer(ctx, op, name, viewerKey, m.now())) return next();
    if (m.factorKey !== undefined && asEnrolling(ctx, op, name, m.factorKey, m.now())) return next();
    if (activeKey === undefined || ctx.get('x-api-key') === '' || ctx.get('authorization').trim() !== '')
      return byJwt(ctx, next);
    const key = await apiKeyOf(ctx, activeKey, undefined, m.now());
    requireKeyScope(key, op.keyScope ?? null, name);
    ctx.state.principal = keyPrincipal(key, op.keyScope);
    await next();
    m.keyUsed?.(key, ctx.state.correlationId);
  };
};

/** Whether the request carries a viewer token, which then is its principal: expired or forged
 *  401, an operation that does not take viewer tokens 403. A user's JWT would fail the JWT's
 *  check on its signature, so it is told apart by its claims before either is verified. */
const asViewer = (ctx: Context, op: AnyOperation, name: string, key: Buffer, now: Date): boolean => {
  const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization').trim())?.[1];
  if (token === undefined || !looksLikeViewerToken(token)) return false;
  const verified = verifyViewerToken(token, key, now);
  if ('refused' in verified) {
    ctx.set('WWW-Authenticate', 'Bearer realm="watchlog", error="invalid_token"');
    throw new HttpError(
      401,
      'unauthorized',
      verified.refused === 'expired'
        ? 'viewer token expired: ask the application that showed this view for a new one'
        : 'invalid viewer token: malformed, or not signed by this service',
    );
  }
  if (op.viewer !== true)
    throw new HttpError(
      403,
      'forbidden',
      `a viewer token reads its tenant's events only (list, search, detail, export, statistics), not ${name}`,
    );
  ctx.state.principal = viewerPrincipal(verified.grant);
  return true;
};

/** Whether the request carries an enrolment token, which then is its principal: expired or
 *  forged 401, an operation that is not an enrolment's 403. */
const asEnrolling = (ctx: Context, op: AnyOperation, name: string, key: Buffer, now: Date): boolean => {
  const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization').trim())?.[1];
  if (token === undefined || !looksLikeEnrolmentToken(token)) return false;
  const claims = verifyFactorToken('enrolment', token, key, now);
  if (claims === null) {
    ctx.set('WWW-Authenticate', 'Bearer realm="watchlog", error="invalid_token"');
    throw new HttpError(401, 'unauthorized', 'enrolment token expired or invalid: sign in again');
  }
  if (op.enrolment !== true)
    throw new HttpError(
      403,
      'forbidden',
      `this token only enrols a second factor (the sign-in finishes when one is enrolled), not ${name}`,
    );
  ctx.state.principal = enrolmentPrincipal(claims);
  return true;
};

/** The koa middleware that applies `op`'s declaration, runs its handler and answers. */
const serving = <D>(
  op: AnyOperation,
  handler: Handler<AnyOperation, D>,
  deps: D,
  m: MountDeps,
): Middleware<AppState> => {
  const queryCodec = op.query ?? NoParameters;
  const answers: Answers = op.responses;
  return async (ctx) => {
    const state = ctx.state;
    if (op.errorBody) state.errorBody = op.errorBody;
    const query = op.ignoresQuery ? {} : (readQuery(ctx.query, queryCodec) as Record<string, unknown>);
    const queryFaults = op.queryCheck?.(query) ?? [];
    if (queryFaults.length > 0) throw validationError('query', queryFaults);

    let key: ActiveKey | undefined;
    if (op.auth === 'api-key' || op.auth === 'api-key-or-query') {
      const fromQuery = op.auth === 'api-key-or-query' ? (query.api_key as string | undefined) : undefined;
      key = await apiKeyOf(ctx, m.activeKey!, fromQuery, m.now());
      requireKeyScope(key, op.keyScope ?? null, `${op.method.toUpperCase()} ${op.path}`);
    } else if (op.auth === 'metrics-token' && m.metricsToken !== undefined) metricsTokenOf(ctx, m.metricsToken);

    const principal = op.auth === 'jwt' ? principalOf(state) : undefined;
    const visible = (kind: keyof ResourceLoaders, id: string | undefined) =>
      visibleOr404(id, RESOURCE_NAMES[kind], (uuid) =>
        (m.resources![kind] as (id: string, scope: Principal['scope']) => Promise<unknown>)(uuid, principal!.scope),
      );
    if (principal && typeof query.project_id === 'string') await visible('project', query.project_id);

    const params: Record<string, string> = {};
    let resource: unknown;
    if (op.resource !== undefined) {
      resource = await visible(op.resource, ctx.params.id);
      params.id = (resource as { id: string }).id;
    }
    if (op.roles && !op.orSelf) requireRole(principal!, ...op.roles);
    for (const [name, param] of Object.entries(op.params ?? {})) {
      const decoded = param.codec.decode(ctx.params[name]);
      if (decoded._tag === 'Left') throw notFound(param.what);
      params[name] = decoded.right;
    }
    if (op.roles && op.orSelf && principal!.userId !== params.id) requireRole(principal!, ...op.roles);

    for (const [name, header] of Object.entries(op.headers ?? {})) {
      const given = ctx.get(name);
      if (header.codec && given !== '')
        decodeOrThrow(header.codec, given, `${name} header`, `headers.${name.toLowerCase()}`);
    }

    let body: unknown;
    if (op.body && op.body.readBy !== 'handler') {
      // An operation that takes a form says so in its media types; any other reads JSON only.
      const types = op.body.mediaTypes ?? [];
      const raw = types.includes(FORM)
        ? await readBody(ctx, m, { json: types.includes('application/json'), form: true })
        : await readJsonBody(ctx, m);
      body = decodeOrThrow(op.body.codec, raw, op.body.what);
      const faults = op.body.check?.(body, { principal: principal!, literalRefusal: m.literalRefusal! }) ?? [];
      if (faults.length > 0) {
        const paths = faults.map((d) => d.path).join(', ');
        throw new HttpError(400, 'validation_error', `invalid ${op.body.what}: ${paths}`, faults);
      }
      const projectId = (body as { project_id?: unknown }).project_id;
      if (principal && typeof projectId === 'string') await visible('project', projectId);
    }

    const command = principal && commandContext(principal, state.correlationId, m.now);
    const call = { params, query, body, resource, principal, command, key, ctx };
    answer(ctx, op, answers, await handler(call as never, deps), m);
    if (key) m.keyUsed?.(key, state.correlationId);
  };
};

const answer = (ctx: Context, op: AnyOperation, answers: Answers, reply: Reply, m: MountDeps): void => {
  const declared = answers[reply.status];
  if (m.checkAnswers) {
    const faults =
      declared === undefined
        ? [{ path: 'status', message: `${reply.status} is not an answer the operation declares` }]
        : // Bytes answer an answer's binary media type (OTLP's protobuf), not its JSON.
          declared.json === undefined || Buffer.isBuffer(reply.body)
          ? []
          : answerProblems(declared.json, reply.body);
    if (faults.length > 0) {
      m.logger.error(
        { operation: `${op.method.toUpperCase()} ${op.path}`, faults },
        'the answer does not match its declaration',
      );
      throw new Error(`${op.method.toUpperCase()} ${op.path} answered what its declaration does not say`);
    }
  }
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
  if (reply.body !== undefined) ctx.body = reply.body;
  // A redirect says all in Location (Koa would write its status text as the body).
  else if (reply.status >= 300 && reply.status < 400) ctx.body = '';
};
