import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  hostAllowed,
  hostKey,
  literalRefusal,
  parseIp,
  refusalText,
  verdictOn,
  type EgressRules,
} from '../domain/egress-rules.ts';

/** The egress policy where connections are made: every monitor check, webhook and Web Push
 *  request (and any redirect they follow) goes through its agents, which judge the address a
 *  socket is about to be opened to, after DNS, so a name that resolves differently from one
 *  request to the next (DNS rebinding) or a redirect to another host cannot get past it:
 *  - a literal IP is judged before the socket is created;
 *  - a host name is resolved by the policy's lookup, which judges every address the name
 *    resolves to and refuses the connection when any of them is denied (Node may fall back from
 *    the first address to the next, so none may be inside);
 *  - a host name on the allow list is connected to as it is, unjudged.
 *  A refusal is an error with code `ERR_EGRESS_REFUSED` and the text of `refusalText`; no TCP
 *  connection is attempted. Built once per process (src/compose/) from the configuration. */

export const EGRESS_REFUSED = 'ERR_EGRESS_REFUSED';

export class EgressRefusedError extends Error {
  readonly code = EGRESS_REFUSED;
}

/** Resolves a host name to all its addresses (dns.lookup, the system resolver, by default). */
export type Resolver = (hostname: string, options: dns.LookupOptions) => Promise<dns.LookupAddress[]>;

export interface EgressPolicy {
  readonly rules: EgressRules;
  /** The agents of every HTTP request (node:http's `agent`, got's). Without keep-alive: every
   *  request is a new connection, judged anew. */
  readonly agent: { readonly http: http.Agent; readonly https: https.Agent };
  /** For validating a URL when it is saved: the refusal text when its host is a literal address
   *  the rules deny, else null (host names are judged when connecting). */
  literalRefusal(url: string): string | null;
  /** For connections made without an agent (SMTP): the address to connect to for `host`, judged
   *  as the agents judge it (a literal address, an allowed name as it is, else the name resolved
   *  and every address judged); the caller connects to what this returns, so the name is not
   *  resolved again. Rejects with an EgressRefusedError when refused. */
  destination(host: string): Promise<string>;
}

/** The refusal text when `error` (a got error, or the policy's own) is a refusal; else null. */
export const refusalOf = (error: unknown): string | null =>
  error instanceof Error && (error as { code?: unknown }).code === EGRESS_REFUSED ? error.message : null;

const systemResolver: Resolver = (hostname, options) => dns.promises.lookup(hostname, { ...options, all: true });

/** net's `lookup` option: resolves with `resolve`, then judges every address. */
const guardedLookup =
  (rules: EgressRules, resolve: Resolver): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        for (const { address } of addresses) {
          const ip = parseIp(address);
          const verdict = ip === null ? null : verdictOn(rules, ip);
          if (verdict === null || !verdict.allowed) {
            const text =
              verdict === null
                ? `blocked by egress policy (${hostname} resolved to ${address}, not an address)`
                : refusalText(verdict);
            callback(new EgressRefusedError(text), '', 0);
            return;
          }
        }
        const first = addresses[0];
        if (first === undefined)
          callback(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }),
            '',
            0,
          );
        else if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

type Judged = { refused: EgressRefusedError } | { options: http.ClientRequestArgs };

/** What a connection may do: be refused now (a denied literal address), go ahead as asked (an
 *  allowed literal address, an allowed host name), or resolve through the guarded lookup. */
const judge = (rules: EgressRules, lookup: LookupFunction, options: http.ClientRequestArgs): Judged => {
  if (options.socketPath)
    return { refused: new EgressRefusedError('blocked by egress policy (unix sockets are never a target)') };
  const host = options.host ?? options.hostname ?? 'localhost';
  const ip = parseIp(host);
  if (ip !== null) {
    const verdict = verdictOn(rules, ip);
    return verdict.allowed ? { options } : { refused: new EgressRefusedError(refusalText(verdict)) };
  }
  if (hostAllowed(rules, host)) return { options };
  return { options: { ...options, lookup } };
};

type Connect = (
  options: http.ClientRequestArgs,
  callback?: (err: Error | null, stream: Duplex) => void,
) => Duplex | null | undefined;

/** createConnection of an agent class, guarded. A refusal goes to the agent's callback, which
 *  fails the request with it (no socket is created). */
const guarded =
  (rules: EgressRules, lookup: LookupFunction, connect: Connect): Connect =>
  (options, callback) => {
    const judged = judge(rules, lookup, options);
    if ('refused' in judged) {
      process.nextTick(() => callback?.(judged.refused, undefined as unknown as Duplex));
      return undefined;
    }
    return connect(judged.options, callback);
  };

export const egressPolicy = (
  rules: EgressRules,
  { resolve = systemResolver }: { resolve?: Resolver } = {},
): EgressPolicy => {
  const lookup = guardedLookup(rules, resolve);
  class HttpAgent extends http.Agent {
    private readonly connect: Connect = guarded(rules, lookup, (o, cb) => super.createConnection(o, cb));
    override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) {
      return this.connect(options, callback);
    }
  }
  class HttpsAgent extends https.Agent {
    private readonly connect: Connect = guarded(rules, lookup, (o, cb) => super.createConnection(o, cb));
    override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void) {
      return this.connect(options, callback);
    }
  }
  return {
    rules,
    agent: { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) },
    literalRefusal: (url) => literalRefusal(rules, url),
    destination: (host) =>
      new Promise((resolve, reject) => {
        const judged = judge(rules, lookup, { host });
        if ('refused' in judged) reject(judged.refused);
        else if (judged.options.lookup === undefined) resolve(hostKey(host));
        else judged.options.lookup(host, {}, (err, address) => (err ? reject(err) : resolve(address as string)));
      }),
  };
};
