import dgram from 'node:dgram';

/** A tiny authoritative DNS server over UDP on 127.0.0.1 for the DNS probe's tests (RFC 1035
 *  messages, written by hand: one question, answers from a zone the test controls). A name not
 *  in the zone is NXDOMAIN; a name without records of the type asked is an empty answer
 *  (NODATA). `silent` names get no answer at all (for timeouts). */

export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  CNAME?: string[];
  NS?: string[];
  /** [preference, exchange] */
  MX?: Array<[number, string]>;
  /** Each record as its character strings. */
  TXT?: string[][];
}

export interface DnsServer {
  /** "127.0.0.1:port", as a monitor's `resolver`. */
  address: string;
  zone: Record<string, ZoneEntry>;
  silent: Set<string>;
  /** Questions received, as "name TYPE". */
  questions: string[];
  close(): Promise<void>;
}

const TYPES: Record<number, keyof ZoneEntry> = { 1: 'A', 2: 'NS', 5: 'CNAME', 15: 'MX', 16: 'TXT', 28: 'AAAA' };
const CODES = Object.fromEntries(Object.entries(TYPES).map(([code, name]) => [name, Number(code)])) as Record<
  keyof ZoneEntry,
  number
>;

/** The name at `at` (no compression: questions are not compressed) and where the question goes on. */
const readName = (msg: Buffer, at: number): { name: string; end: number } => {
  const labels: string[] = [];
  let i = at;
  while (msg[i] !== 0) {
    const length = msg[i]!;
    labels.push(msg.subarray(i + 1, i + 1 + length).toString('ascii'));
    i += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
};

const encodeName = (name: string): Buffer =>
  Buffer.concat([
    ...name
      .replace(/\.$/, '')
      .split('.')
      .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);

const rdataOf = (type: keyof ZoneEntry, value: unknown): Buffer => {
  switch (type) {
    case 'A':
      return Buffer.from((value as string).split('.').map(Number));
    case 'AAAA': {
      const full = (value as string).includes('::') ? expand(value as string) : (value as string);
      return Buffer.concat(full.split(':').map((group) => u16(Number.parseInt(group, 16))));
    }
    case 'CNAME':
    case 'NS':
      return encodeName(value as string);
    case 'MX': {
      const [preference, exchange] = value as [number, string];
      return Buffer.concat([u16(preference), encodeName(exchange)]);
    }
    case 'TXT':
      return Buffer.concat(
        (value as string[]).map((s) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)])),
      );
  }
};

const expand = (v6: string): string => {
  const [head, tail] = v6.split('::') as [string, string];
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  return [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].join(':');
};

export const startDnsServer = async (zone: Record<string, ZoneEntry> = {}): Promise<DnsServer> => {
  const socket = dgram.createSocket('udp4');
  const server: DnsServer = {
    address: '',
    zone,
    silent: new Set(),
    questions: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (msg, peer) => {
    const { name, end } = readName(msg, 12);
    const qtype = msg.readUInt16BE(end);
    const type = TYPES[qtype];
    server.questions.push(`${name} ${type ?? qtype}`);
    if (server.silent.has(name)) return;
    const entry = server.zone[name];
    const values: unknown[] = entry === undefined || type === undefined ? [] : (entry[type] ?? []);
    const question = msg.subarray(12, end + 4);
    const answers = values.map((value) => {
      const rdata = rdataOf(type!, value);
      // The owner name is a pointer to the question's name, at offset 12.
      return Buffer.concat([
        u16(0xc00c),
        u16(CODES[type!]),
        u16(1),
        Buffer.from([0, 0, 0, 60]),
        u16(rdata.length),
        rdata,
      ]);
    });
    const rd = msg[2]! & 0x01;
    const rcode = entry === undefined ? 3 : 0;
    const header = Buffer.concat([
      msg.subarray(0, 2),
      Buffer.from([0x84 | rd, 0x80 | rcode]),
      u16(1),
      u16(answers.length),
      u16(0),
      u16(0),
    ]);
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${socket.address().port}`;
  return server;
};
