import net from 'node:net';

/** HTTP/1.1 over a bare `node:net` socket, for tests that need to see what a connection does:
 *  half-sent requests, stalled bodies, keep-alive reuse, and exactly when the server closes. */

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Wall-clock time (ms) the response was complete. */
  at: number;
}

/** The connection ended (or failed) before a complete response. */
export interface RawClosed {
  closed: true;
  at: number;
  error: string | null;
  partial: string;
}

/** Milliseconds since the epoch: comparable with the `time` of the server's log lines. */
export const wallNow = () => Date.now();

export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiter: ((r: RawResponse | RawClosed) => void) | null = null;
  private readonly ready: RawResponse[] = [];
  private ended: RawClosed | null = null;
  /** Resolves when the socket is closed, whoever closed it. */
  readonly closed: Promise<RawClosed>;

  private constructor(readonly socket: net.Socket) {
    let error: string | null = null;
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.ended = { closed: true, at: wallNow(), error, partial: this.buffer.toString('latin1') };
        // A response without Content-Length (Node's own 408) ends with the connection.
        if (this.buffer.length > 0) this.parse(true);
        const waiter = this.waiter;
        this.waiter = null;
        waiter?.(this.ready.shift() ?? this.ended);
        resolve(this.ended);
      });
    });
  }

  /** Connects; rejects with the error code (ECONNREFUSED…) when the connection fails. */
  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host);
      socket.setNoDelay(true);
      const onError = (e: NodeJS.ErrnoException) =>
        reject(Object.assign(new Error(e.code ?? e.message), { code: e.code }));
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        resolve(new RawConnection(socket));
      });
    });
  }

  get isClosed(): boolean {
    return this.ended !== null;
  }

  /** Writes raw bytes; returns the wall-clock time of the write. */
  write(data: string | Buffer): number {
    const at = wallNow();
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(data);
    return at;
  }

  /** The next complete response, or how the connection ended first. */
  next(): Promise<RawResponse | RawClosed> {
    const ready = this.ready.shift();
    if (ready) return Promise.resolve(ready);
    if (this.ended) return Promise.resolve(this.ended);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(atEnd = false): void {
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? NaN);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length =
        headers['content-length'] === undefined
          ? atEnd
            ? this.buffer.length - headEnd - 4
            : 0
          : Number(headers['content-length']);
      if (this.buffer.length < headEnd + 4 + length) return;
      const body = this.buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headEnd + 4 + length);
      const response: RawResponse = { status, headers, body, at: wallNow() };
      const waiter = this.waiter;
      this.waiter = null;
      if (waiter) waiter(response);
      else this.ready.push(response);
    }
  }
}

/** A request's text; `body` (a string) sets Content-Length unless `headers` gives one. */
export const rawRequest = (method: string, path: string, headers: Record<string, string> = {}, body = ''): string => {
  const all: Record<string, string> = { Host: '127.0.0.1', ...headers };
  if (body !== '' && !Object.keys(all).some((k) => k.toLowerCase() === 'content-length'))
    all['Content-Length'] = String(Buffer.byteLength(body));
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;
};
