import test from 'ava';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode } from '../../src/domain/totp.ts';

/** RFC 6238 appendix B (SHA-1, the secret "12345678901234567890"): the last six of its eight digits. */
const RFC_SECRET = Buffer.from('12345678901234567890');
const VECTORS: Array<[number, string]> = [
  [59, '287082'],
  [1_111_111_109, '081804'],
  [1_111_111_111, '050471'],
  [1_234_567_890, '005924'],
  [2_000_000_000, '279037'],
  [20_000_000_000, '353130'],
];

test("RFC 6238's test vectors", (t) => {
  for (const [seconds, code] of VECTORS) t.is(totpCode(RFC_SECRET, new Date(seconds * 1000)), code, `T = ${seconds}`);
  // RFC 4226 appendix D: HOTP of counters 0 and 9.
  t.is(hotp(RFC_SECRET, 0), '755224');
  t.is(hotp(RFC_SECRET, 9), '520489');
});

test('base32 both ways, forgiving case and spaces; anything else is refused', (t) => {
  const encoded = base32Encode(RFC_SECRET);
  t.is(encoded, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  t.deepEqual(base32Decode(encoded.toLowerCase().replace(/(.{4})/g, '$1 ')), RFC_SECRET);
  t.is(base32Decode('not base32!'), null);
});

test('a code is taken within one step either side, once, and never an earlier step after a later one', (t) => {
  const at = new Date(1_111_111_111_000);
  const step = Math.floor(1_111_111_111 / 30);
  t.is(matchTotp(RFC_SECRET, '050471', at, null), step);
  t.is(matchTotp(RFC_SECRET, '050471', at, step), null, 'the same code again');
  t.is(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step - 1), at, null), step - 1, 'the previous step');
  t.is(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step + 1), at, null), step + 1, 'the next step');
  t.is(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step - 2), at, null), null, 'two steps back');
  t.is(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step - 1), at, step), null, 'older than the last used');
  t.is(matchTotp(RFC_SECRET, '12345', at, null), null);
});

test('the otpauth URI names the issuer and account, and the parameters apps default to', (t) => {
  const uri = new URL(otpauthUri('JBSWY3DPEHPK3PXP', 'watchlog', 'ada@example.com'));
  t.is(uri.protocol, 'otpauth:');
  t.is(uri.host, 'totp');
  t.is(decodeURIComponent(uri.pathname), '/watchlog:ada@example.com');
  t.is(uri.searchParams.get('secret'), 'JBSWY3DPEHPK3PXP');
  t.is(uri.searchParams.get('issuer'), 'watchlog');
  t.is(uri.searchParams.get('digits'), '6');
  t.is(uri.searchParams.get('period'), '30');
});
