import type { Readable } from 'node:stream';
import type * as t from 'io-ts';
import type { Context } from 'koa';
import type { CommandContext } from '../../commands/handle.ts';
import type { KeyScope } from '../../domain/api-keys.ts';
import type { Role } from '../../domain/codecs.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import type { ActiveKey } from '../../views/access/port.ts';
import type { Principal } from '../middleware/auth.ts';
import type { AppState, ErrorEncoder } from '../state.ts';
import type { ResourceKind, Resources } from './resources.ts';

/** One operation of the API, declared once: its method and path, how it is authenticated, who
 *  may call it, the codecs of its query, path and body, and the codec of each answer. `mount`
 *  applies all of it before the handler runs; the OpenAPI document and the dashboard's client
 *  types are generated from the same declarations. */

export type Method = 'get' | 'post' | 'put' | 'delete';

/** None, a login's JWT, a project's API key (a header, or for a batch the `api_key` parameter
 *  too), or the metrics token. */
export type Auth = 'none' | 'jwt' | 'api-key' | 'api-key-or-query' | 'metrics-token';

export interface Header {
  readonly description: string;
  /** Its value's codec (default: a string). A request header with a codec is decoded by
   *  `mount`: a value it refuses is 400 on `headers.<name>`. */
  readonly codec?: t.Mixed;
  /** On an answer: always sent. */
  readonly required?: boolean;
}

/** An answer the operation declares for a status: its JSON body's codec, or the media types of
 *  a body that is not JSON, or no body. */
export interface Answer {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header>>;
  readonly json?: t.Mixed;
  readonly text?: { readonly mediaTypes: readonly string[]; readonly description: string };
  readonly example?: unknown;
}
export interface JsonAnswer<C extends t.Mixed = t.Mixed> extends Answer {
  readonly json: C;
}
export interface TextAnswer extends Answer {
  readonly text: { readonly mediaTypes: readonly string[]; readonly description: string };
}
export type Answers = Readonly<Record<number, Answer>>;

export const json = <C extends t.Mixed>(description: string, codec: C, example?: unknown): JsonAnswer<C> => ({
  description,
  json: codec,
  ...(example === undefined ? {} : { example }),
});
export const noContent = (description: string): Answer => ({ description });

/** A path parameter that names no resource of a project: a value its codec refuses is 404
 *  `<what> not found`, as an unknown one is. */
export interface PathParam {
  readonly codec: t.Type<string, string, unknown>;
  readonly what: string;
}

export interface Body<C extends t.Mixed> {
  readonly codec: C;
  /** Its name in messages: `invalid monitor: interval_seconds …`. */
  readonly what: string;
  readonly mediaTypes?: readonly string[];
  readonly description?: string;
  readonly example?: unknown;
  /** The handler reads and decodes the body itself, when it must choose when: ingest reads a
   *  batch only once the batch has its turn, and keeps nothing of it through the commit. */
  readonly readBy?: 'handler';
  /** What is wrong with a decoded body beyond its shape (a literal address the egress policy
   *  denies; a choice the caller's role may not make): 400 naming each path. */
  check?(input: t.TypeOf<C>, caller: BodyCaller): ErrorDetail[];
}

/** What a body check may ask about. */
export interface BodyCaller {
  readonly principal: Principal;
  /** Why the egress policy refuses a URL whose host is a literal address, or null. */
  readonly literalRefusal: (url: string) => string | null;
}

/** The codec `t.exact(t.type({}))`: no parameter at all. */
type NoQuery = t.ExactC<t.TypeC<Record<string, never>>>;

export interface Operation<
  P extends string = string,
  A extends Auth = Auth,
  Q extends t.Mixed = t.Mixed,
  B extends t.Mixed = t.Mixed,
  K extends ResourceKind | undefined = ResourceKind | undefined,
  R extends Answers = Answers,
  H extends 'handler' | undefined = 'handler' | undefined,
> {
  readonly method: Method;
  /** As the router has it: `/v1/monitors/:id`. */
  readonly path: P;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: A;
  /** The API key scope it takes: for `api-key` operations the scope a key needs (403 without
   *  it); for `jwt` ones, that a key with this scope in `X-API-Key` may stand in for a sign-in
   *  (reading its own project only). A key sent to a `jwt` operation without one is 403. */
  readonly keyScope?: KeyScope;
  /** A viewer token may call it (`jwt` operations): its handler narrows the read to the token's
   *  tenant and hides its fields. Elsewhere a viewer token is 403. */
  readonly viewer?: true;
  /** An enrolment token may call it (`jwt` operations): a user the second-factor policy sends to
   *  enrol before they are signed in. Elsewhere an enrolment token is 403. */
  readonly enrolment?: true;
  /** The roles that may call it (others: 403); absent: every role that sees the resource. */
  readonly roles?: readonly Role[];
  /** The roles are asked of the caller only when the user `:id` names is someone else. */
  readonly orSelf?: true;
  /** `:id` names a resource of a project: one the caller may not see is 404, as an unknown
   *  one is; the handler gets it as `resource`. */
  readonly resource?: K;
  /** Every other path parameter. */
  readonly params?: Readonly<Record<string, PathParam>>;
  /** The query codec (closed: an unknown parameter is 400); absent: no parameter is taken. */
  readonly query?: Q;
  /** The operation answers whatever parameters it is sent (liveness, ingest). */
  readonly ignoresQuery?: true;
  /** Rules between parameters, checked after each parameter's own (400 on the paths named). */
  queryCheck?(query: t.TypeOf<Q>): ErrorDetail[];
  /** Request headers it reads. */
  readonly headers?: Readonly<Record<string, Header>>;
  readonly body?: Body<B> & { readonly readBy?: H };
  readonly responses: R;
  /** Error statuses beyond those its authentication, roles, parameters and body imply. */
  readonly errors?: readonly number[];
  /** Its errors in the encoding the request chose, where a protocol says so (OTLP/HTTP's
   *  protobuf `Status`); the JSON shape otherwise. Applies from the first check on (the key's 401). */
  readonly errorBody?: ErrorEncoder;
  /** Served only when configured: the metrics endpoint (`WATCHLOG_METRICS_TOKEN`). */
  readonly servedBy?: 'metrics';
}

/** An operation of any shape, as the table holds it; each is checked where it is declared. */
export type AnyOperation = Operation<
  string,
  Auth,
  // biome-ignore lint/suspicious/noExplicitAny: codecs of every type; `Call` recovers each one's own
  any,
  // biome-ignore lint/suspicious/noExplicitAny: as above
  any,
  ResourceKind | undefined,
  Answers,
  'handler' | undefined
>;

/** Declares an operation, inferring its path, codecs and answers for its handler's types. */
export const operation = <
  const P extends string,
  A extends Auth,
  Q extends t.Mixed = NoQuery,
  B extends t.Mixed = never,
  K extends ResourceKind | undefined = undefined,
  R extends Answers = Answers,
  H extends 'handler' | undefined = undefined,
>(
  op: Operation<P, A, Q, B, K, R, H>,
): Operation<P, A, Q, B, K, R, H> => op;

/** What a handler answers: a status its operation declares, with that answer's body. */
export interface Reply<S extends number = number, B = unknown> {
  readonly status: S;
  readonly body?: B;
  readonly headers?: Readonly<Record<string, string>>;
}

type TextBody = string | Buffer | Readable;

/** An answer's type with its enums widened to their base types: a handler's reply is checked
 *  for its fields and their kinds at compile time (views keep plain strings for stored values),
 *  and for every value in tests and development (`mount`'s answer check). */
type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer I)[]
        ? Widen<I>[]
        : T extends object
          ? { [K in keyof T]: Widen<T[K]> }
          : T;
type ReplyFor<S extends number, A> = A extends { readonly json: infer C extends t.Mixed }
  ? A extends { readonly text: object }
    ? Reply<S, Widen<t.TypeOf<C>> | Buffer> & { readonly body: Widen<t.TypeOf<C>> | Buffer }
    : Reply<S, Widen<t.TypeOf<C>>> & { readonly body: Widen<t.TypeOf<C>> }
  : A extends { readonly text: object }
    ? Reply<S, TextBody>
    : Reply<S, undefined>;
export type ReplyOf<R extends Answers> = { [S in keyof R & number]: ReplyFor<S, R[S]> }[keyof R & number];

export const ok = <B>(body: B, headers?: Readonly<Record<string, string>>) => ({
  status: 200 as const,
  body,
  ...(headers ? { headers } : {}),
});
export const created = <B>(body: B) => ({ status: 201 as const, body });
export const accepted = <B>(body: B, headers?: Readonly<Record<string, string>>) => ({
  status: 202 as const,
  body,
  ...(headers ? { headers } : {}),
});
export const noBody = <S extends number>(status: S): Reply<S, undefined> => ({ status });

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

type Defined<X> = Exclude<X, undefined>;
type BodyDeclared<O extends AnyOperation> = Defined<O['body']>;
type BodyOf<O extends AnyOperation> = [BodyDeclared<O>['codec']] extends [never]
  ? undefined
  : [Defined<BodyDeclared<O>['readBy']>] extends [never]
    ? t.TypeOf<BodyDeclared<O>['codec']>
    : undefined;

/** What the handler of `O` is given, once `mount` has authenticated and decoded the request. */
export interface Call<O extends AnyOperation> {
  /** The path's parameters, decoded (UUIDs in lower case). */
  readonly params: Readonly<Record<ParamNames<O['path']>, string>>;
  readonly query: t.TypeOf<Defined<O['query']>>;
  /** The decoded body; undefined when there is none, or when the handler reads it. */
  readonly body: BodyOf<O>;
  readonly resource: [Defined<O['resource']>] extends [never] ? undefined : Resources[Defined<O['resource']>];
  readonly principal: O['auth'] extends 'jwt' ? Principal : undefined;
  /** The command context of the caller's changes. */
  readonly command: O['auth'] extends 'jwt' ? CommandContext : undefined;
  readonly key: O['auth'] extends 'api-key' | 'api-key-or-query' ? ActiveKey : undefined;
  /** Request headers, the socket, and what streamed answers set themselves. */
  readonly ctx: Context & { state: AppState };
}

export type Handler<O extends AnyOperation, D> = (
  call: Call<O>,
  deps: D,
) => Promise<ReplyOf<O['responses']>> | ReplyOf<O['responses']>;

export type Group = Readonly<Record<string, AnyOperation>>;
export type Table = Readonly<Record<string, Group>>;

/** One handler per operation of a group. */
export type Handlers<G extends Group, D> = { readonly [K in keyof G]: Handler<G[K], D> };
/** One group of handlers per group of the table. */
export type TableHandlers<T extends Table, D> = { readonly [K in keyof T]: Handlers<T[K], D> };
