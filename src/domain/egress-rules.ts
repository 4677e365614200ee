/** The egress rules: which addresses watchlog may open a connection to (monitor checks, webhooks,
 *  Web Push). Pure: IP and CIDR parsing, the normal form of an address, and the verdict. The
 *  policy that applies them to every connection, on the resolved address, is
 *  src/checks/egress.ts; the variables that set them are WATCHLOG_EGRESS_DENY and
 *  WATCHLOG_EGRESS_ALLOW (src/config.ts).
 *
 *  An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is the IPv4 address it
 *  maps: a socket opened to it reaches that IPv4 host, so it is matched as IPv4, and a rule
 *  written in that form (`::ffff:10.0.0.0/104`) is an IPv4 rule. Every other IPv6 address is
 *  matched as IPv6. */

export interface Ip {
  readonly family: 4 | 6;
  /** The address as a 32- or 128-bit number. */
  readonly value: bigint;
}

export interface Cidr {
  readonly family: 4 | 6;
  /** The network's address, host bits cleared. */
  readonly network: bigint;
  readonly prefix: number;
}

/** Addresses and host names from one variable. */
export interface AddressList {
  readonly cidrs: readonly Cidr[];
  /** Host names, lower case without a trailing dot (WATCHLOG_EGRESS_ALLOW only). */
  readonly hosts: readonly string[];
}

export interface EgressRules {
  readonly deny: readonly Cidr[];
  /** Addresses allowed even when a deny rule covers them. */
  readonly allow: readonly Cidr[];
  /** Host names allowed whatever they resolve to. */
  readonly allowHosts: readonly string[];
}

export type Verdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly address: string; readonly rule: string };

const BITS = { 4: 32, 6: 128 } as const;
const MAPPED_PREFIX = 0xffffn;

const parseIpv4 = (s: string): bigint | null => {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    // No leading zeros: `010` is octal to some parsers and decimal to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
};

/** Groups of one side of `::`; an embedded IPv4 is allowed only at the very end. */
const groupsOf = (part: string, last: boolean): bigint[] | null => {
  if (part === '') return [];
  const items = part.split(':');
  const groups: bigint[] = [];
  for (const [i, item] of items.entries()) {
    if (last && i === items.length - 1 && item.includes('.')) {
      const v4 = parseIpv4(item);
      if (v4 === null) return null;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-f]{1,4}$/i.test(item)) {
      groups.push(BigInt(`0x${item}`));
    } else {
      return null;
    }
  }
  return groups;
};

const parseIpv6 = (s: string): bigint | null => {
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const given = head.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...Array<bigint>(8 - given).fill(0n), ...tail].reduce((value, group) => (value << 16n) | group, 0n);
};

/** An IPv4-mapped IPv6 address as the IPv4 address it maps; any other address as it is. */
const normalised = (ip: Ip): Ip =>
  ip.family === 6 && ip.value >> 32n === MAPPED_PREFIX ? { family: 4, value: ip.value & 0xffffffffn } : ip;

/** An IP address in its normal form; `[…]` brackets and an IPv6 zone (`%eth0`) are dropped.
 *  Null when the text is not an address. */
export const parseIp = (text: string): Ip | null => {
  const s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIpv4(s);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIpv6(s.replace(/%[^%]+$/, ''));
  return v6 === null ? null : normalised({ family: 6, value: v6 });
};

/** `a.b.c.d/n`, `x::/n`, or a single address (`/32`, `/128`). Host bits are cleared (as Go's
 *  `net.ParseCIDR` does); an IPv4-mapped network of prefix 96 or more is the IPv4 network. */
export const parseCidr = (text: string): Cidr | null => {
  const slash = text.lastIndexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  if (address.includes('%') || address.startsWith('[')) return null;
  const v4 = parseIpv4(address);
  const v6 = v4 === null ? parseIpv6(address) : null;
  const parsed =
    v4 !== null ? { family: 4 as const, value: v4 } : v6 !== null ? { family: 6 as const, value: v6 } : null;
  if (parsed === null) return null;
  const bits = BITS[parsed.family];
  let prefix: number = bits;
  if (slash !== -1) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return null;
    prefix = Number(p);
  }
  if (parsed.family === 6 && prefix >= 96 && parsed.value >> 32n === MAPPED_PREFIX) {
    return cidr(4, parsed.value & 0xffffffffn, prefix - 96);
  }
  return cidr(parsed.family, parsed.value, prefix);
};

const cidr = (family: 4 | 6, value: bigint, prefix: number): Cidr => {
  const hostBits = BigInt(BITS[family] - prefix);
  return { family, network: (value >> hostBits) << hostBits, prefix };
};

export const covers = (c: Cidr, ip: Ip): boolean => {
  if (c.family !== ip.family) return false;
  const hostBits = BigInt(BITS[c.family] - c.prefix);
  return ip.value >> hostBits === c.network >> hostBits;
};

/** Dotted quad, or RFC 5952 text (lower case, the longest run of zero groups as `::`). */
export const formatIp = (ip: Ip): string => {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (ip.value >> BigInt(112 - 16 * i)) & 0xffffn);
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0n) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0n) j += 1;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
};

/** A network as `address/prefix`; a single address without its prefix. */
export const formatCidr = (c: Cidr): string => {
  const address = formatIp({ family: c.family, value: c.network });
  return c.prefix === BITS[c.family] ? address : `${address}/${c.prefix}`;
};

/** A host name as URLs and DNS compare it: lower case, no trailing dot, no brackets. */
export const hostKey = (host: string): string =>
  host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

const isHostName = (s: string): boolean => {
  if (s.length === 0 || s.length > 253) return false;
  const labels = s.split('.');
  // A name whose last label is a number is an (invalid) address to a URL parser, never a name.
  return labels.every((l) => LABEL.test(l)) && !/^(\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]!);
};

/** A comma-separated list of addresses and CIDRs (and host names when `hosts`). Empty entries
 *  are ignored; `bad` lists the entries that are none of those (and `(no entries)` when the list
 *  names nothing). */
export const parseAddressList = (text: string, { hosts }: { hosts: boolean }): { list: AddressList; bad: string[] } => {
  const cidrs: Cidr[] = [];
  const names: string[] = [];
  const bad: string[] = [];
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const c = parseCidr(entry);
    if (c !== null) cidrs.push(c);
    else if (hosts && isHostName(hostKey(entry))) names.push(hostKey(entry));
    else bad.push(entry);
  }
  if (entries.length === 0) bad.push('(no entries)');
  return { list: { cidrs, hosts: names }, bad };
};

/** The verdict on one address: allowed when an allow rule covers it or no deny rule does;
 *  otherwise denied, naming the most specific deny rule that covers it. */
export const verdictOn = (rules: EgressRules, ip: Ip): Verdict => {
  const address = normalised(ip);
  if (rules.allow.some((c) => covers(c, address))) return { allowed: true };
  let match: Cidr | null = null;
  for (const c of rules.deny) if (covers(c, address) && (match === null || c.prefix > match.prefix)) match = c;
  return match === null ? { allowed: true } : { allowed: false, address: formatIp(address), rule: formatCidr(match) };
};

/** Whether a host name is on the allow list (then it is never checked, whatever it resolves to). */
export const hostAllowed = (rules: EgressRules, host: string): boolean => rules.allowHosts.includes(hostKey(host));

/** What a refused connection reports: in check results, delivery records and 400 answers. */
export const refusalText = (v: { address: string; rule: string }): string =>
  `blocked by egress policy (${v.address} is in ${v.rule})`;

/** The refusal of a URL whose host is a literal address the rules deny; null for an allowed
 *  address, or a host name (names are judged when connecting, on what they resolve to then). */
export const literalRefusal = (rules: EgressRules, url: string): string | null => {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  const ip = parseIp(host);
  if (ip === null) return null;
  const v = verdictOn(rules, ip);
  return v.allowed ? null : refusalText(v);
};
