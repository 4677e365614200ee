import type { PeerCertificate } from 'node:tls';
import type { Observation } from '../domain/check-judge.ts';
import type { Certificate } from '../domain/monitor.ts';

/** What the probes share: what one returns, and how a peer's certificate is recorded. */

/** A probe's observation, and whether the egress policy refused the connection (for metrics). */
export interface Observed {
  observation: Observation;
  refused: boolean;
}

/** Error codes of a failed TLS handshake or certificate verification. */
export const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME_MISMATCH/;

/** A timer for a probe: milliseconds since it started, rounded. */
export const stopwatch = (): (() => number) => {
  const started = performance.now();
  return () => Math.round(performance.now() - started);
};

/** `CN=example.com, O=Example`: a distinguished name's parts in the certificate's order. */
const nameText = (name: Record<string, string | string[] | undefined> | undefined): string =>
  Object.entries(name ?? {})
    .flatMap(([k, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((one) => `${k}=${one}`)))
    .join(', ');

const isoOf = (text: string): string => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
};

/** The DNS names and IP addresses of a subjectAltName ("DNS:a.example, IP Address:127.0.0.1"). */
const altNames = (san: string | undefined): string[] =>
  (san ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):"?(.*?)"?$/.exec(entry.trim())?.[1])
    .filter((name): name is string => name !== undefined && name !== '');

/** The certificate a TLS socket's peer presented (tls.TLSSocket's getPeerCertificate): validity
 *  as ISO times, issuer and subject as text, the names it is for. Undefined when there is none
 *  (a plain socket, a session without a certificate). */
export const certificateOf = (socket: unknown): Certificate | undefined => {
  const get = (socket as { getPeerCertificate?: () => PeerCertificate } | undefined)?.getPeerCertificate;
  if (typeof get !== 'function') return undefined;
  const peer = get.call(socket);
  if (peer === null || typeof peer !== 'object' || !peer.valid_to) return undefined;
  return {
    valid_from: isoOf(peer.valid_from),
    valid_to: isoOf(peer.valid_to),
    issuer: nameText(peer.issuer as unknown as Record<string, string | string[]>),
    subject: nameText(peer.subject as unknown as Record<string, string | string[]>),
    names: altNames(peer.subjectaltname),
  };
};
