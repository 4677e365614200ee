import dns from 'node:dns';
import { parseIp, refusalText, verdictOn, type EgressRules } from '../domain/egress-rules.ts';
import type { DnsRecordType } from '../domain/monitor-options.ts';
import type { CheckTarget } from './http-probe.ts';
import type { EgressPolicy } from './egress.ts';
import { stopwatch, type Observed } from './observed.ts';

class DeadlineError extends Error {}

/** The address part of a `resolver` setting: "1.1.1.1", "127.0.0.1:5353", "[::1]:53", "::1". */
export const resolverHost = (resolver: string): string => {
  if (resolver.startsWith('[')) return resolver.slice(1, resolver.indexOf(']'));
  return /^[\d.]+:\d+$/.test(resolver) ? resolver.slice(0, resolver.lastIndexOf(':')) : resolver;
};

/** The egress policy's refusal of a resolver's address; null when it may be asked. */
export const resolverRefusal = (rules: EgressRules, resolver: string): string | null => {
  const ip = parseIp(resolverHost(resolver));
  if (ip === null) return `blocked by egress policy (${resolver} is not an address)`;
  const verdict = verdictOn(rules, ip);
  return verdict.allowed ? null : refusalText(verdict);
};

/** The records of one type, each as a text: addresses (A, AAAA), names (CNAME, NS), "10
 *  mail.example.com" (MX: preference, exchange), a TXT record's strings joined. */
const lookup = async (resolver: dns.promises.Resolver, name: string, type: DnsRecordType): Promise<string[]> => {
  switch (type) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'CNAME':
      return resolver.resolveCname(name);
    case 'NS':
      return resolver.resolveNs(name);
    case 'MX':
      return (await resolver.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  }
};

const describe = (error: unknown, target: CheckTarget, name: string, type: DnsRecordType): string => {
  if (error instanceof DeadlineError) return `timeout: no DNS answer within ${target.timeout_seconds} s`;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case dns.NODATA:
      return `no ${type} records for ${name}`;
    case dns.NOTFOUND:
      return `${name} does not exist (NXDOMAIN)`;
    case dns.TIMEOUT:
      return `timeout: no DNS answer within ${target.timeout_seconds} s`;
    case dns.SERVFAIL:
      return `the DNS server failed to answer for ${name} (SERVFAIL)`;
    case dns.REFUSED:
      return `the DNS server refused the query for ${name} (REFUSED)`;
    case dns.CONNREFUSED:
      return `connection refused by ${target.resolver ?? 'the DNS server'}`;
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return typeof code === 'string' ? `DNS error for ${name}: ${code}` : `DNS error for ${name}: ${message}`;
    }
  }
};

/** A DNS check: `hostname`'s records of `record_type` (A by default), asked once (no retries)
 *  of `resolver` when set, else of the system's resolvers. A resolver's address is judged by the
 *  egress policy first: a refusal is a failed check with the policy's text, and nothing is sent.
 *  No records, or a name that does not exist, is a failed check. `response_ms`: to the answer. */
export const observeDns = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<Observed> => {
  const checkedAt = now().toISOString();
  const elapsed = stopwatch();
  const name = target.hostname ?? '';
  const type = target.record_type ?? 'A';
  const refusal = target.resolver === undefined ? null : resolverRefusal(egress.rules, target.resolver);
  if (refusal !== null)
    return { observation: { checked_at: checkedAt, response_ms: 0, error: refusal }, refused: true };
  const ms = target.timeout_seconds * 1000;
  const resolver = new dns.promises.Resolver({ timeout: ms, tries: 1 });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (target.resolver !== undefined) resolver.setServers([target.resolver]);
    const records = await Promise.race([
      lookup(resolver, name, type),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          resolver.cancel();
          reject(new DeadlineError('deadline'));
        }, ms);
      }),
    ]);
    clearTimeout(timer);
    const answered = { checked_at: checkedAt, response_ms: elapsed() };
    return {
      observation:
        records.length === 0
          ? { ...answered, error: `no ${type} records for ${name}` }
          : { ...answered, dns_records: records },
      refused: false,
    };
  } catch (error) {
    clearTimeout(timer);
    return {
      observation: { checked_at: checkedAt, response_ms: elapsed(), error: describe(error, target, name, type) },
      refused: false,
    };
  }
};
