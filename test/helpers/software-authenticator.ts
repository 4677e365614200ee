import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** A passkey authenticator in software, for tests over HTTP (Chromium's virtual authenticator
 *  serves the browser tests): an ES256 key per credential, `none` attestation, a signature
 *  counter, user presence and verification always given. Its CBOR is the little WebAuthn needs. */

const head = (major: number, n: number): Buffer => {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65_536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
};

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
const cbor = (v: Cbor): Buffer => {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
};

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
const b64 = (b: Buffer) => b.toString('base64url');
const counterBytes = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

export class SoftwareAuthenticator {
  private readonly credentials = new Map<
    string,
    { key: ReturnType<typeof generateKeyPairSync>['privateKey']; userHandle: string; counter: number }
  >();

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {}

  /** The answer to navigator.credentials.create for `options` (the server's JSON options). */
  register(options: { challenge: string; user: { id: string } }) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = randomBytes(16);
    this.credentials.set(b64(id), { key: privateKey, userHandle: options.user.id, counter: 0 });
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      counterBytes(0),
      Buffer.alloc(16),
      Buffer.from([0, id.length]),
      id,
      cbor(coseKey),
    ]);
    const clientData = {
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    };
    const attestation = new Map<Cbor, Cbor>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]);
    return {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64(Buffer.from(JSON.stringify(clientData))),
        attestationObject: b64(cbor(attestation)),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to navigator.credentials.get with the credential `id` (any one when omitted). */
  assert(options: { challenge: string }, id = [...this.credentials.keys()][0]!) {
    const credential = this.credentials.get(id)!;
    credential.counter += 1;
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([0x05]), counterBytes(credential.counter)]);
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: this.origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.key);
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64(clientData),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
