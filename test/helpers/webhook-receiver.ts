import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/domain/notification.ts';

/** A webhook receiver that keeps what it got and whether the signature verified with `secret`. */
export const webhookReceiver = async (secret: string) => {
  const received: Array<{ body: Record<string, unknown>; verified: boolean; delivery: string; event: string }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      received.push({
        body: JSON.parse(raw) as Record<string, unknown>,
        verified: verifySignature(secret, raw, req.headers['x-watchlog-signature'] as string | undefined),
        delivery: String(req.headers['x-watchlog-delivery']),
        event: String(req.headers['x-watchlog-event']),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};
