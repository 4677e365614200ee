import type { Server } from 'node:net';
import net from 'node:net';
import { generate } from 'selfsigned';

/** Servers on 127.0.0.1 for the probes' tests: a listening helper that closes every connection
 *  on teardown, a port nothing listens on, and a self-signed certificate with a chosen expiry. */

export interface Listening {
  port: number;
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1, on a port of the system's choosing. */
export const listen = async (server: Server): Promise<Listening> => {
  const sockets = new Set<net.Socket>();
  const listening: Listening = {
    port: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  // A TLS server's sockets too are counted when accepted, before any handshake.
  server.on('connection', (s: net.Socket) => {
    listening.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listening.port = (server.address() as net.AddressInfo).port;
  return listening;
};

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export const closedPort = async (): Promise<number> => {
  const { port, close } = await listen(net.createServer());
  await close();
  return port;
};

export interface Pem {
  key: string;
  cert: string;
}

/** A self-signed certificate for localhost and 127.0.0.1, valid from yesterday until `days` days
 *  from now. */
export const certificateFor = async (days: number): Promise<Pem> => {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 86_400_000),
    notAfterDate: new Date(now + days * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
};
