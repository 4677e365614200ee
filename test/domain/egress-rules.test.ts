import test from 'ava';
import fc from 'fast-check';
import { BlockList, isIP } from 'node:net';
import {
  covers,
  formatCidr,
  formatIp,
  hostAllowed,
  literalRefusal,
  parseAddressList,
  parseCidr,
  parseIp,
  refusalText,
  verdictOn,
  type EgressRules,
} from '../../src/domain/egress-rules.ts';
import { DEFAULT_EGRESS_DENY } from '../../src/config.ts';

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`not an address: ${text}`);
  return parsed;
};
const cidrs = (text: string) => parseAddressList(text, { hosts: false }).list.cidrs;
const rules = (deny: string, allow = ''): EgressRules => {
  const allowed = allow === '' ? { cidrs: [], hosts: [] } : parseAddressList(allow, { hosts: true }).list;
  return { deny: cidrs(deny), allow: allowed.cidrs, allowHosts: allowed.hosts };
};

test('addresses are parsed to their normal form: IPv4-mapped IPv6 is the IPv4 address, in every spelling', (t) => {
  const table: Array<[string, string | null]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::1', '::1'],
    ['::', '::'],
    ['[::1]', '::1'],
    ['FE80::1%eth0', 'fe80::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:2:3:4:5:6:0:8', '1:2:3:4:5:6:0:8'],
    ['fd00:ec2::254', 'fd00:ec2::254'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['[::ffff:7f00:1]', '127.0.0.1'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::127.0.0.1', '::7f00:1'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:1'],
    // not addresses
    ['localhost', null],
    ['127.1', null],
    ['0x7f.0.0.1', null],
    ['010.0.0.1', null],
    ['256.0.0.1', null],
    ['1.2.3.4.5', null],
    ['1::2::3', null],
    ['1:2:3:4:5:6:7:8:9', null],
    ['1:2:3:4:5:6:7::8', null],
    ['12345::', null],
    ['::ffff:127.0.0.1:1', null],
    ['1.2.3.4::', null],
    [':1::', null],
    ['', null],
  ];
  for (const [text, expected] of table) {
    const parsed = parseIp(text);
    t.is(parsed === null ? null : formatIp(parsed), expected, text);
  }
});

test('the address parser agrees with node:net and the URL parser: same addresses, same canonical text', (t) => {
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
  // Groups with runs of zeros, so that compression is exercised.
  const v6 = fc
    .array(fc.oneof(fc.constant(0), fc.nat(0xffff)), { minLength: 8, maxLength: 8 })
    .map((g) => g.map((x) => x.toString(16)).join(':'));
  fc.assert(
    fc.property(fc.oneof(v4, v6), (text) => {
      const parsed = parseIp(text);
      if (parsed === null || isIP(text) === 0) return false;
      const formatted = formatIp(parsed);
      // IPv4, and IPv4-mapped IPv6 as the IPv4 address it maps.
      if (parsed.family === 4)
        return isIP(text) === 4 ? formatted === text : /^0:0:0:0:0:ffff:/.test(text) && isIP(formatted) === 4;
      // WHATWG serialises IPv6 as RFC 5952 does.
      return formatted === new URL(`http://[${text}]/`).hostname.slice(1, -1);
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

test(
  'CIDRs: v4 and v6, single addresses, host bits cleared, ' + 'mapped networks are IPv4; malformed ones are refused',
  (t) => {
    const table: Array<[string, string | null]> = [
      ['10.0.0.0/8', '10.0.0.0/8'],
      ['10.1.2.3/8', '10.0.0.0/8'],
      ['169.254.169.254', '169.254.169.254'],
      ['255.255.255.255/32', '255.255.255.255'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['fe80::/10', 'fe80::/10'],
      ['FC00::/7', 'fc00::/7'],
      ['::/128', '::'],
      ['::/0', '::/0'],
      ['::1/128', '::1'],
      ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
      ['::ffff:0:0/96', '0.0.0.0/0'],
      ['10.0.0.0/33', null],
      ['fe80::/129', null],
      ['10.0.0.0/', null],
      ['10.0.0.0/-1', null],
      ['10.0.0.0/8/8', null],
      ['10.0.0/8', null],
      ['[::1]/128', null],
      ['fe80::1%eth0/64', null],
      ['example.com', null],
    ];
    for (const [text, expected] of table) {
      const parsed = parseCidr(text);
      t.is(parsed === null ? null : formatCidr(parsed), expected, text);
    }
  },
);

test('a CIDR covers what node:net BlockList says it covers', (t) => {
  fc.assert(
    fc.property(
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.')),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.')),
      fc.nat(32),
      (network, address, prefix) => {
        const list = new BlockList();
        list.addSubnet(network, prefix, 'ipv4');
        return covers(parseCidr(`${network}/${prefix}`)!, ip(address)) === list.check(address, 'ipv4');
      },
    ),
    { numRuns: 1000 },
  );
  fc.assert(
    fc.property(
      fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':')),
      fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':')),
      fc.nat(128),
      (network, address, prefix) => {
        const parsed = ip(address);
        // Mapped addresses are IPv4 here by design; BlockList compares them as IPv6.
        fc.pre(parsed.family === 6 && parseCidr(`${network}/${prefix}`)!.family === 6);
        const list = new BlockList();
        list.addSubnet(network, prefix, 'ipv6');
        return covers(parseCidr(`${network}/${prefix}`)!, parsed) === list.check(address, 'ipv6');
      },
    ),
    { numRuns: 1000 },
  );
  t.pass();
});

test('verdicts: the most specific deny rule is named, mapped addresses match IPv4 rules, allow overrides deny', (t) => {
  const compose = rules(
    `${DEFAULT_EGRESS_DENY},127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7`,
  );
  const table: Array<[EgressRules, string, string | null]> = [
    // [rules, address, the refusal or null when allowed]
    [rules(DEFAULT_EGRESS_DENY), '169.254.169.254', '169.254.169.254 is in 169.254.0.0/16'],
    [rules(DEFAULT_EGRESS_DENY), '::ffff:169.254.169.254', '169.254.169.254 is in 169.254.0.0/16'],
    [rules(DEFAULT_EGRESS_DENY), 'fd00:ec2::254', 'fd00:ec2::254 is in fd00:ec2::254'],
    [rules(DEFAULT_EGRESS_DENY), '100.100.100.200', '100.100.100.200 is in 100.100.100.200'],
    [rules(DEFAULT_EGRESS_DENY), '0.0.0.0', '0.0.0.0 is in 0.0.0.0/8'],
    [rules(DEFAULT_EGRESS_DENY), '::', ':: is in ::'],
    [rules(DEFAULT_EGRESS_DENY), '::ffff:0.0.0.0', '0.0.0.0 is in 0.0.0.0/8'],
    [rules(DEFAULT_EGRESS_DENY), '255.255.255.255', '255.255.255.255 is in 255.255.255.255'],
    [rules(DEFAULT_EGRESS_DENY), '239.1.2.3', '239.1.2.3 is in 224.0.0.0/4'],
    [rules(DEFAULT_EGRESS_DENY), 'ff02::1', 'ff02::1 is in ff00::/8'],
    [rules(DEFAULT_EGRESS_DENY), 'fe80::1%lo', 'fe80::1 is in fe80::/10'],
    [rules(DEFAULT_EGRESS_DENY), '127.0.0.1', null],
    [rules(DEFAULT_EGRESS_DENY), '::1', null],
    [rules(DEFAULT_EGRESS_DENY), '10.1.2.3', null],
    [rules(DEFAULT_EGRESS_DENY), '93.184.215.14', null],
    [compose, '127.0.0.1', '127.0.0.1 is in 127.0.0.0/8'],
    [compose, '::ffff:127.0.0.1', '127.0.0.1 is in 127.0.0.0/8'],
    [compose, '::ffff:7f00:1', '127.0.0.1 is in 127.0.0.0/8'],
    [compose, '::1', '::1 is in ::1'],
    [compose, '172.31.255.255', '172.31.255.255 is in 172.16.0.0/12'],
    [compose, '172.32.0.1', null],
    [compose, '100.100.100.200', '100.100.100.200 is in 100.100.100.200'],
    [compose, 'fd12:3456::1', 'fd12:3456::1 is in fc00::/7'],
    [compose, '2606:4700::1111', null],
    [compose, '::7f00:1', null],
    [rules('::ffff:127.0.0.0/104'), '127.0.0.1', '127.0.0.1 is in 127.0.0.0/8'],
    [rules('::/0'), '::ffff:127.0.0.1', null],
    [rules('::/0'), '2001:db8::1', '2001:db8::1 is in ::/0'],
    [rules('10.0.0.0/8,10.1.0.0/16'), '10.1.2.3', '10.1.2.3 is in 10.1.0.0/16'],
    [rules('10.1.0.0/16,10.0.0.0/8'), '10.1.2.3', '10.1.2.3 is in 10.1.0.0/16'],
    [rules('127.0.0.0/8', '127.0.0.1'), '127.0.0.1', null],
    [rules('127.0.0.0/8', '127.0.0.1'), '::ffff:127.0.0.1', null],
    [rules('127.0.0.0/8', '127.0.0.1'), '127.0.0.2', '127.0.0.2 is in 127.0.0.0/8'],
    [rules('10.1.0.0/16', '10.0.0.0/8'), '10.1.2.3', null],
    [rules('127.0.0.0/8', 'localhost'), '127.0.0.1', '127.0.0.1 is in 127.0.0.0/8'],
  ];
  for (const [r, address, expected] of table) {
    const v = verdictOn(r, ip(address));
    t.is(v.allowed ? null : `${v.address} is in ${v.rule}`, expected, address);
  }
  t.is(
    refusalText({ address: '127.0.0.1', rule: '127.0.0.0/8' }),
    'blocked by egress policy (127.0.0.1 is in 127.0.0.0/8)',
  );
});

test('allowed host names match as URLs and DNS compare them', (t) => {
  const r = rules('127.0.0.0/8', 'Status.Internal.,localhost');
  t.deepEqual(r.allowHosts, ['status.internal', 'localhost']);
  for (const host of ['status.internal', 'STATUS.internal', 'status.internal.', 'localhost'])
    t.true(hostAllowed(r, host), host);
  for (const host of ['internal', 'x.status.internal', 'status.internal.evil.test', '127.0.0.1'])
    t.false(hostAllowed(r, host), host);
});

test('address lists: entries trimmed, empty ones ignored, host names only where allowed, bad entries named', (t) => {
  t.deepEqual(parseAddressList(' 10.0.0.0/8 , ,fc00::/7,', { hosts: false }).list.cidrs.map(formatCidr), [
    '10.0.0.0/8',
    'fc00::/7',
  ]);
  t.deepEqual(parseAddressList('10.0.0.0/33,example.com,::1', { hosts: false }).bad, ['10.0.0.0/33', 'example.com']);
  t.deepEqual(parseAddressList('10.0.0.0/33,example.com,::1', { hosts: true }).bad, ['10.0.0.0/33']);
  t.deepEqual(parseAddressList('example.com,10.0.0.0/8', { hosts: true }).list.hosts, ['example.com']);
  // A "name" ending in a number is a malformed address, never a host.
  t.deepEqual(parseAddressList('300.1.1.1,10.0.1,0x7f.1,bad host,a/b', { hosts: true }).bad, [
    '300.1.1.1',
    '10.0.1',
    '0x7f.1',
    'bad host',
    'a/b',
  ]);
  t.deepEqual(parseAddressList(' , ', { hosts: false }).bad, ['(no entries)']);
});

test('a saved URL is refused only when its host is a literal denied address, in any spelling a URL allows', (t) => {
  const r = rules('127.0.0.0/8,::1/128,169.254.0.0/16');
  const table: Array<[string, string | null]> = [
    ['http://127.0.0.1:8080/health', '127.0.0.1 is in 127.0.0.0/8'],
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1 is in 127.0.0.0/8'],
    ['http://[::1]:3000/', '::1 is in ::1'],
    ['http://2130706433/', '127.0.0.1 is in 127.0.0.0/8'],
    ['http://0x7f.1/', '127.0.0.1 is in 127.0.0.0/8'],
    ['http://127.1/', '127.0.0.1 is in 127.0.0.0/8'],
    ['https://169.254.169.254./latest/meta-data/', '169.254.169.254 is in 169.254.0.0/16'],
    ['http://localhost:8080/', null],
    ['http://metadata.internal/', null],
    ['http://10.0.0.1/', null],
    ['not a url', null],
  ];
  for (const [url, expected] of table)
    t.is(literalRefusal(r, url), expected === null ? null : `blocked by egress policy (${expected})`, url);
});
