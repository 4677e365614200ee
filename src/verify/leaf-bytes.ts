import { hash } from 'node:crypto';

/** The fast path of leaf.ts: a line's leaf hash taken from its bytes, without JSON.parse or
 *  JSON.stringify. The leaf text is the canonical JSON of six fields of the line (canonical.ts).
 *  The server writes its lines with JSON.stringify, so each value in a line is written as
 *  canonical JSON writes it but for the order of object members: the leaf bytes are then the
 *  line's own bytes, copied piece by piece, each object's members in order of their keys.
 *
 *  The answer is either "a record of leaf index i, whose fields hash to the leaf_hash it carries"
 *  or NOT_SURE, and then leaf.ts reads the line the slow way, which decides every other case (a
 *  malformed line, an edited record, a missing one). What this accepts it accepts only where the
 *  slow way gives the same leaf hash: the line is one JSON object (read strictly, RFC 8259) with
 *  each of the six fields once, a leaf_index of at most 15 digits, a leaf_hash, no `missing`, and
 *  nothing in it written otherwise than JSON.stringify writes the value JSON.parse reads:
 *  - no whitespace between tokens;
 *  - strings escaped as JSON.stringify escapes them: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and
 *    `\u00xx` (lower-case hex) for the other characters below U+0020; any other character as it
 *    is, in well-formed UTF-8 (which decoding and encoding again give back unchanged);
 *  - numbers as JSON.stringify writes the number they read as (so not -0, 1.0, 1E3 or 1e400);
 *  - keys in ASCII without escapes (so that comparing bytes compares UTF-16 code units, as
 *    canonical JSON sorts, and two keys that differ are two properties), and no key twice in an
 *    object (JSON.parse would keep only the last);
 *  - at most MAX_DEPTH levels of nesting, and MAX_ITEMS objects and members.
 *  Anything else, and a leaf_hash that does not match, is NOT_SURE. */

export const NOT_SURE = -1;
const FAIL = -1;

const MAX_DEPTH = 64;
const MAX_ITEMS = 4096;
/** Longer lines are read the slow way, so that the buffer below stays small. */
const MAX_LINE = 1 << 24;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const OPEN = 0x7b;
const CLOSE = 0x7d;

/** The line at [0, end), then the leaf bytes made of it from `end` on, `o` being written. */
let buf: Buffer = Buffer.allocUnsafe(1 << 16);
let end = 0;
let o = 0;

/** The members of the objects open while a line is read: the key (without quotes), the member
 *  (key to value), and `objects` as it was at the member's start (the first object within it). */
const keyAt = new Int32Array(MAX_ITEMS);
const keyEnd = new Int32Array(MAX_ITEMS);
const memberAt = new Int32Array(MAX_ITEMS);
const memberEnd = new Int32Array(MAX_ITEMS);
const memberObject = new Int32Array(MAX_ITEMS);
let members = 0;

/** The objects of a line, in the order they open: where they are, the number of the first object
 *  after the ones within them, and for one whose members are out of order where its members are
 *  in `sorted` (else -1). */
const objectAt = new Int32Array(MAX_ITEMS);
const objectEnd = new Int32Array(MAX_ITEMS);
const objectAfter = new Int32Array(MAX_ITEMS);
const objectSorted = new Int32Array(MAX_ITEMS);
const objectMembers = new Int32Array(MAX_ITEMS);
let objects = 0;

/** The members of the objects out of order, each object's in order of their keys. */
const sortedAt = new Int32Array(MAX_ITEMS);
const sortedEnd = new Int32Array(MAX_ITEMS);
const sortedObject = new Int32Array(MAX_ITEMS);
let sorted = 0;

const compareKeys = (a: number, b: number): number => {
  const aAt = keyAt[a]!;
  const bAt = keyAt[b]!;
  const aLength = keyEnd[a]! - aAt;
  const bLength = keyEnd[b]! - bAt;
  const n = Math.min(aLength, bLength);
  for (let k = 0; k < n; k += 1) {
    const d = buf[aAt + k]! - buf[bAt + k]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
};

/** Per member count, the order the last object of that many members out of order needed: a
 *  stream's objects have a few shapes, so that order is usually right (it is checked). */
const orders = new Map<number, Int32Array>();

/** Whether the keys of members base + order[0], base + order[1]… strictly increase. */
const increasing = (base: number, order: Int32Array): boolean => {
  for (let k = 1; k < order.length; k += 1) if (compareKeys(base + order[k - 1]!, base + order[k]!) >= 0) return false;
  return true;
};

/** Notes the order of the members base..top-1 of object x; false when a key comes twice. */
const putInOrder = (x: number, base: number, top: number): boolean => {
  const n = top - base;
  objectSorted[x] = -1;
  let order = orders.get(n);
  if (order === undefined || !increasing(base, order)) {
    let inOrder = true;
    for (let m = base + 1; m < top; m += 1) {
      const d = compareKeys(m - 1, m);
      if (d === 0) return false;
      if (d > 0) inOrder = false;
    }
    if (inOrder) return true;
    order = Int32Array.from({ length: n }, (_, k) => k).sort((a, b) => compareKeys(base + a, base + b));
    if (!increasing(base, order)) return false;
    if (orders.size < 256) orders.set(n, order);
  }
  if (sorted + n > MAX_ITEMS) return false;
  objectSorted[x] = sorted;
  for (let k = 0; k < n; k += 1) {
    const m = base + order[k]!;
    sortedAt[sorted] = memberAt[m]!;
    sortedEnd[sorted] = memberEnd[m]!;
    sortedObject[sorted] = memberObject[m]!;
    sorted += 1;
  }
  return true;
};

/** The length of the well-formed UTF-8 sequence at p, whose first byte c is not ASCII (Unicode
 *  Table 3-7), or FAIL. */
const utf8Length = (p: number, c: number): number => {
  let n = 2;
  let low = 0x80;
  let high = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) low = 0xa0;
    else if (c === 0xed) high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) low = 0x90;
    else if (c === 0xf4) high = 0x8f;
  } else return FAIL;
  if (p + n > end) return FAIL;
  const second = buf[p + 1]!;
  if (second < low || second > high) return FAIL;
  for (let k = 2; k < n; k += 1) {
    const next = buf[p + k]!;
    if (next < 0x80 || next > 0xbf) return FAIL;
  }
  return n;
};

/** Per byte in a string: 1 for ASCII written as it is (not `"`, `\` or below U+0020). */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c += 1) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;
/** The escapes JSON.stringify writes with a letter: \" \\ \b \f \n \r \t. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;
/** The characters below U+0020 it writes so, rather than as \u00xx. */
const HAS_SHORT_ESCAPE = new Uint8Array(32);
for (const c of '\b\f\n\r\t') HAS_SHORT_ESCAPE[c.charCodeAt(0)] = 1;

const isDigit = (c: number) => c >= ZERO && c <= 0x39;
const lowerHex = (c: number): number => (isDigit(c) ? c - ZERO : c >= 0x61 && c <= 0x66 ? c - 0x61 + 10 : FAIL);

/** A string at p (its opening quote); a key when `key`: printable ASCII, no escapes. */
const string = (p: number, key: boolean): number => {
  const s = buf;
  const stop = end;
  for (let i = p + 1; i < stop; i += 1) {
    const c = s[i]!;
    if (PLAIN[c] === 1) continue;
    if (c === QUOTE) return i + 1;
    if (c < 0x20 || key) return FAIL;
    if (c === BACKSLASH) {
      if (i + 1 >= stop) return FAIL;
      const e = s[i + 1]!;
      if (e < 128 && SHORT_ESCAPE[e] === 1) {
        i += 1;
        continue;
      }
      // \u00xx, for a character below U+0020 without a short escape.
      if (e !== 0x75 || i + 5 >= stop || s[i + 2] !== ZERO || s[i + 3] !== ZERO) return FAIL;
      const high = s[i + 4]! - ZERO;
      const low = lowerHex(s[i + 5]!);
      if ((high !== 0 && high !== 1) || low === FAIL || HAS_SHORT_ESCAPE[high * 16 + low] === 1) return FAIL;
      i += 5;
      continue;
    }
    const n = utf8Length(i, c);
    if (n === FAIL) return FAIL;
    i += n - 1;
  }
  return FAIL;
};

const digits = (p: number): number => {
  let i = p;
  while (i < end && isDigit(buf[i]!)) i += 1;
  return i;
};

/** A number at p, as RFC 8259 writes one, and as JSON.stringify writes the number it reads as. */
const number = (p: number): number => {
  let i = p;
  if (i < end && buf[i] === MINUS) i += 1;
  if (i >= end) return FAIL;
  if (buf[i] === ZERO) i += 1;
  else if (isDigit(buf[i]!)) i = digits(i);
  else return FAIL;
  let integer = true;
  if (i < end && buf[i] === 0x2e) {
    integer = false;
    const after = digits(i + 1);
    if (after === i + 1) return FAIL;
    i = after;
  }
  if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
    integer = false;
    i += 1;
    if (i < end && (buf[i] === 0x2b || buf[i] === MINUS)) i += 1;
    const after = digits(i);
    if (after === i) return FAIL;
    i = after;
  }
  // An integer of up to 15 characters is exact and written back as it is, but for -0.
  if (!integer || i - p > 15 || (buf[p] === MINUS && buf[p + 1] === ZERO)) {
    const text = buf.toString('latin1', p, i);
    if (String(Number(text)) !== text) return FAIL;
  }
  return i;
};

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

const literal = (p: number, word: Buffer): number => {
  if (p + word.length > end) return FAIL;
  for (let k = 0; k < word.length; k += 1) if (buf[p + k] !== word[k]) return FAIL;
  return p + word.length;
};

/** A value at p: the position after it, or FAIL. */
const value = (p: number, depth: number): number => {
  if (p >= end) return FAIL;
  const c = buf[p]!;
  if (c === QUOTE) return string(p, false);
  if (c === OPEN) return depth < MAX_DEPTH ? object(p, depth + 1) : FAIL;
  if (c === 0x5b) return depth < MAX_DEPTH ? array(p, depth + 1) : FAIL;
  if (c === 0x74) return literal(p, TRUE);
  if (c === 0x66) return literal(p, FALSE);
  if (c === 0x6e) return literal(p, NULL);
  return number(p);
};

const array = (p: number, depth: number): number => {
  let i = p + 1;
  if (i < end && buf[i] === 0x5d) return i + 1;
  for (;;) {
    i = value(i, depth);
    if (i === FAIL || i >= end) return FAIL;
    const c = buf[i++]!;
    if (c === 0x5d) return i;
    if (c !== COMMA) return FAIL;
  }
};

const object = (p: number, depth: number): number => {
  if (objects === MAX_ITEMS) return FAIL;
  const x = objects++;
  objectAt[x] = p;
  const base = members;
  let i = p + 1;
  if (!(i < end && buf[i] === CLOSE)) {
    for (;;) {
      if (members === MAX_ITEMS || i >= end || buf[i] !== QUOTE) return FAIL;
      const m = members++;
      memberAt[m] = i;
      keyAt[m] = i + 1;
      memberObject[m] = objects;
      i = string(i, true);
      if (i === FAIL || i >= end || buf[i] !== COLON) return FAIL;
      keyEnd[m] = i - 1;
      i = value(i + 1, depth);
      if (i === FAIL || i >= end) return FAIL;
      memberEnd[m] = i;
      const c = buf[i++]!;
      if (c === CLOSE) break;
      if (c !== COMMA) return FAIL;
    }
  } else i += 1;
  objectEnd[x] = i;
  objectAfter[x] = objects;
  objectMembers[x] = members - base;
  const ok = putInOrder(x, base, members);
  members = base;
  return ok ? i : FAIL;
};

const copy = (from: number, to: number) => {
  buf.copyWithin(o, from, to);
  o += to - from;
};

/** Writes the canonical bytes of the value at [from, to), the objects within it numbered from
 *  `x`: its own bytes, but for the objects out of order, written member by member. */
const write = (from: number, to: number, x: number): void => {
  let at = from;
  for (let k = x; k < objects && objectAt[k]! < to; ) {
    const first = objectSorted[k]!;
    if (first < 0) {
      k += 1;
      continue;
    }
    copy(at, objectAt[k]!);
    buf[o++] = OPEN;
    for (let j = first; j < first + objectMembers[k]!; j += 1) {
      if (j > first) buf[o++] = COMMA;
      write(sortedAt[j]!, sortedEnd[j]!, sortedObject[j]!);
    }
    buf[o++] = CLOSE;
    at = objectEnd[k]!;
    k = objectAfter[k]!;
  }
  copy(at, to);
};

/** The line's members that matter here; the first six are the leaf's fields, in their order. */
const NAMES = ['data', 'id', 'metadata', 'revision', 'stream', 'type', 'leaf_index', 'leaf_hash', 'missing'].map(
  (name) => Buffer.from(name),
);
const FIELDS = 6;
const LEAF_INDEX = 6;
const LEAF_HASH = 7;
const MISSING = 8;
/** Before each field in the leaf bytes: `{"data":`, `,"id":`… */
const LEAD = NAMES.slice(0, FIELDS).map((name, f) => Buffer.from(`${f === 0 ? '{' : ','}"${name.toString()}":`));
const seen = new Uint8Array(NAMES.length);
const valueAt = new Int32Array(NAMES.length);
const valueEnd = new Int32Array(NAMES.length);
const valueObject = new Int32Array(NAMES.length);

const nameOf = (at: number, length: number): number => {
  for (let n = 0; n < NAMES.length; n += 1) {
    const name = NAMES[n]!;
    if (name.length !== length) continue;
    let k = 0;
    while (k < length && buf[at + k] === name[k]) k += 1;
    if (k === length) return n;
  }
  return FAIL;
};

/** The top-level object of the line: its members that matter noted in `seen` and `value…`. */
const line = (): boolean => {
  let i = 1;
  for (;;) {
    if (i >= end || buf[i] !== QUOTE) return false;
    const keyStart = i + 1;
    i = string(i, true);
    if (i === FAIL || i >= end || buf[i] !== COLON) return false;
    const name = nameOf(keyStart, i - 1 - keyStart);
    if (name !== FAIL) {
      if (seen[name] !== 0) return false;
      seen[name] = 1;
    }
    const at = i + 1;
    const x = objects;
    i = value(at, 0);
    if (i === FAIL || i >= end) return false;
    if (name !== FAIL) {
      valueAt[name] = at;
      valueEnd[name] = i;
      valueObject[name] = x;
    }
    const c = buf[i++]!;
    if (c === CLOSE) return i === end;
    if (c !== COMMA) return false;
  }
};

/** Reads the line `bytes[start, stop)`: when it surely is a record, its leaf index, its leaf
 *  bytes (0x00 ‖ leaf text) then at buf[end, o); NOT_SURE otherwise. */
const read = (bytes: Buffer, start: number, stop: number): number => {
  const length = stop - start;
  if (bytes[start] !== OPEN || length > MAX_LINE) return NOT_SURE;
  // The line, then its leaf bytes: at most the line and the leaf's punctuation.
  if (buf.length < 2 * length + 64) buf = Buffer.allocUnsafe(2 * length + 64);
  bytes.copy(buf, 0, start, stop);
  end = length;
  members = 0;
  objects = 0;
  sorted = 0;
  seen.fill(0);
  if (!line() || seen[MISSING] !== 0) return NOT_SURE;
  for (let n = 0; n < MISSING; n += 1) if (seen[n] !== 1) return NOT_SURE;
  // Digits only (no sign, fraction or exponent), at most 15 of them: a safe integer.
  if (valueEnd[LEAF_INDEX]! - valueAt[LEAF_INDEX]! > 15) return NOT_SURE;
  let index = 0;
  for (let k = valueAt[LEAF_INDEX]!; k < valueEnd[LEAF_INDEX]!; k += 1) {
    const c = buf[k]!;
    if (!isDigit(c)) return NOT_SURE;
    index = index * 10 + (c - ZERO);
  }
  if (buf[valueAt[LEAF_HASH]!] !== QUOTE) return NOT_SURE;
  o = end;
  buf[o++] = 0x00;
  for (let f = 0; f < FIELDS; f += 1) {
    buf.set(LEAD[f]!, o);
    o += LEAD[f]!.length;
    write(valueAt[f]!, valueEnd[f]!, valueObject[f]!);
  }
  buf[o++] = CLOSE;
  return index;
};

/** What `leafOfLine` hashes, for tests: the line's leaf index and leaf bytes, or null when it is
 *  not sure of them. */
export const leafBytesOfLine = (line: Buffer): { index: number; bytes: Buffer } | null => {
  const index = read(line, 0, line.length);
  return index === NOT_SURE ? null : { index, bytes: Buffer.from(buf.subarray(end, o)) };
};

/** The leaf index of the line `bytes[start, stop)` (without its line end) when the line surely is
 *  a record whose fields hash to its leaf_hash, that hash then written to `hashes` at `at`;
 *  NOT_SURE otherwise. */
export const leafOfLine = (bytes: Buffer, start: number, stop: number, hashes: Buffer, at: number): number => {
  const index = read(bytes, start, stop);
  if (index === NOT_SURE) return NOT_SURE;
  // Taken as base64 (node's hash() gives a Buffer much slower), compared with the leaf_hash as
  // written (a string that differs, escapes and all, is not sure), and written to `hashes`.
  const leaf = hash('sha256', buf.subarray(end, o), 'base64');
  const given = valueAt[LEAF_HASH]! + 1;
  if (valueEnd[LEAF_HASH]! - 1 - given !== leaf.length) return NOT_SURE;
  for (let k = 0; k < leaf.length; k += 1) if (buf[given + k] !== leaf.charCodeAt(k)) return NOT_SURE;
  hashes.write(leaf, 32 * at, 32, 'base64');
  return index;
};
