import net from 'node:net';
import tls from 'node:tls';
import type { Certificate } from '../domain/monitor.ts';
import { hostKey, parseIp } from '../domain/egress-rules.ts';
import type { CheckTarget } from './http-probe.ts';
import { refusalOf, type EgressPolicy } from './egress.ts';
import { certificateOf, stopwatch, TLS_CODE, type Observed } from './observed.ts';

class DeadlineError extends Error {}

/** Opens the connection (and, with `tls`, makes the handshake), then closes it. Resolves with the
 *  peer's certificate when there was a handshake. */
const connect = (
  address: string,
  port: number,
  host: string,
  target: CheckTarget,
  ms: number,
): Promise<Certificate | undefined> =>
  new Promise((resolve, reject) => {
    const socket = target.tls
      ? tls.connect({
          host: address,
          port,
          // SNI and the certificate's name check are for the name; an address is checked as itself.
          ...(parseIp(host) === null ? { servername: host } : {}),
          rejectUnauthorized: !(target.ignore_tls_errors ?? false),
        })
      : net.connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new DeadlineError('deadline'));
    }, ms);
    socket.once(target.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      const certificate = target.tls ? certificateOf(socket) : undefined;
      socket.destroy();
      resolve(certificate);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });

const describe = (error: unknown, target: CheckTarget, url: URL): string => {
  const refused = refusalOf(error);
  if (refused !== null) return refused;
  if (error instanceof DeadlineError)
    return `timeout: no ${target.tls ? 'TLS handshake' : 'connection'} within ${target.timeout_seconds} s`;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed for ${url.hostname}`;
  if (code === 'ECONNRESET') return `connection reset by ${url.host}`;
  if (typeof code === 'string' && TLS_CODE.test(code)) return `TLS error: ${message}`;
  return typeof code === 'string' ? `${code}: ${message}` : message;
};

/** A TCP check of `tcp://host:port`: the host judged (and resolved) by the egress policy, a
 *  connection to the address it gives within the monitor's timeout, with `tls` a TLS handshake
 *  too (its certificate recorded; verified unless `ignore_tls_errors`), then the connection
 *  closed, nothing sent. `response_ms`: to the connection (the handshake with `tls`). */
export const observeTcp = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<Observed> => {
  const checkedAt = now().toISOString();
  const elapsed = stopwatch();
  const url = new URL(target.url);
  const host = hostKey(url.hostname);
  const ms = target.timeout_seconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const address = await Promise.race([
      egress.destination(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DeadlineError('deadline')), ms);
      }),
    ]);
    clearTimeout(timer);
    const certificate = await connect(address, Number(url.port), host, target, Math.max(1, ms - elapsed()));
    return {
      observation: { checked_at: checkedAt, response_ms: elapsed(), ...(certificate ? { certificate } : {}) },
      refused: false,
    };
  } catch (error) {
    clearTimeout(timer);
    return {
      observation: { checked_at: checkedAt, response_ms: elapsed(), error: describe(error, target, url) },
      refused: refusalOf(error) !== null,
    };
  }
};
