import http from 'node:http';
import net, { type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { HttpLimits } from '../config.ts';

/** A request handler that settles when it is done with the request (Koa's `callback()`). */
export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** What a drain did: logged with "stopped" (docs/operations.md#shutdown-and-limits). */
export interface DrainReport {
  ms: number;
  /** Requests in flight at the signal, answered normally (with `Connection: close`). */
  in_flight: number;
  /** Requests that arrived after the signal: `503`, not processed. */
  refused: number;
  /** Idle keep-alive connections closed at once. */
  idle_closed: number;
  /** Connections closed without an answer: still sending headers after the grace, or open at the
   *  deadline. */
  cut: number;
}

export interface DrainOptions {
  /** How long a connection with no request being answered (one still sending its headers) may
   *  stay open. */
  graceMs: number;
  /** Connections still open this long after the signal are closed, whatever they are doing. */
  deadlineMs: number;
}

const SHUTTING_DOWN = JSON.stringify({
  error: {
    code: 'shutting_down',
    message: 'the server is shutting down and takes no new requests; nothing was done; retry on a new connection',
    details: [],
  },
});

/** How long after the signal idle keep-alive connections are closed: long enough for a request a
 *  client had already sent on one to arrive and be answered 503, instead of the connection being
 *  closed under it (the client would see a reset with no answer). */
export const IDLE_SETTLE_MS = 50;

/** The HTTP server with the configured limits, and its drain. Node enforces the header, request
 *  and keep-alive timeouts and `maxConnections` (a connection over it is closed at once); the body
 *  timeout is the app's (`readJsonBody`), told of the drain through `draining`.
 *
 *  `drain()`: requests in flight finish and are answered with `Connection: close`; requests that
 *  arrive afterwards on an open connection get `503` (`Connection: close`, `Retry-After`) and are
 *  not processed; the listener closes at once (new connections are refused); idle keep-alive
 *  connections are closed after IDLE_SETTLE_MS and busy ones after their response; a connection
 *  still sending its headers gets `graceMs`; whatever is open at `deadlineMs` is closed and
 *  logged. It resolves when every connection is closed and every handler has returned, so nothing
 *  is left writing to the stores. */
export class HttpServer {
  readonly server: http.Server;
  private readonly drainSignal = new AbortController();
  private readonly handler: RequestHandler;
  /** Open connections, each with its responses not yet closed. */
  private readonly sockets = new Map<Socket, number>();
  /** Responses not yet sent, to mark `Connection: close` when the drain starts. */
  private readonly unanswered = new Set<http.ServerResponse>();
  private handling = 0;
  private draining = false;
  private onSettled: (() => void) | null = null;
  private readonly stats = { in_flight: 0, refused: 0, idle_closed: 0, cut: 0 };
  private dropped = 0;
  private lastDropLog = 0;

  /** `handlerFor` gets the signal aborted when the drain starts (body reads shorten their wait). */
  constructor(
    limits: HttpLimits,
    private readonly logger: Logger,
    handlerFor: (draining: AbortSignal) => RequestHandler,
  ) {
    this.handler = handlerFor(this.drainSignal.signal);
    this.server = http.createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        // How often Node looks for connections past those two timeouts.
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      },
      this.onRequest,
    );
    this.server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    this.server.maxConnections = limits.maxConnections;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, 0);
      socket.once('close', () => this.forget(socket));
    });
    this.server.on('drop', () => {
      this.dropped += 1;
      const now = Date.now();
      if (now - this.lastDropLog < 10_000) return;
      this.lastDropLog = now;
      this.logger.warn(
        { max_connections: limits.maxConnections, refused: this.dropped },
        'connections refused: too many open',
      );
      this.dropped = 0;
    });
  }

  private readonly onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const socket = req.socket;
    if (this.sockets.has(socket)) this.sockets.set(socket, this.sockets.get(socket)! + 1);
    res.once('close', () => this.responseClosed(socket, res));
    if (this.draining) {
      this.refuse(req, res);
      return;
    }
    this.unanswered.add(res);
    this.handling += 1;
    const done = () => {
      this.handling -= 1;
      this.settle();
    };
    this.handler(req, res).then(done, done);
  };

  private refuse(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.stats.refused += 1;
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(SHUTTING_DOWN),
      Connection: 'close',
      'Retry-After': '1',
    });
    res.end(req.method === 'HEAD' ? undefined : SHUTTING_DOWN);
  }

  private responseClosed(socket: Socket, res: http.ServerResponse): void {
    this.unanswered.delete(res);
    const open = this.sockets.get(socket);
    if (open === undefined) return;
    this.sockets.set(socket, open - 1);
    // A response whose headers went out before the drain could not say `Connection: close`:
    // its connection is ended here, after the response, like the others.
    if (this.draining && open - 1 === 0 && !socket.destroyed) socket.end();
  }

  private forget(socket: Socket): void {
    this.sockets.delete(socket);
    this.settle();
  }

  private settle(): void {
    if (this.draining && this.handling === 0 && this.sockets.size === 0) this.onSettled?.();
  }

  /** What is still open, for the shutdown's logs. */
  openNow(): { connections: number; handlers: number; requests: string[] } {
    return {
      connections: this.sockets.size,
      handlers: this.handling,
      requests: [...this.unanswered].map((res) => `${res.req.method ?? '?'} ${res.req.url ?? '?'}`),
    };
  }

  /** Stops taking requests and waits for those in flight (see the class comment). */
  async drain({ graceMs, deadlineMs }: DrainOptions): Promise<DrainReport> {
    const started = performance.now();
    if (this.draining) throw new Error('the HTTP server is already draining');
    this.draining = true;
    this.drainSignal.abort();
    this.stats.in_flight = this.unanswered.size;
    for (const res of this.unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
    const settled = new Promise<void>((resolve) => {
      this.onSettled = resolve;
    });
    const deadline = setTimeout(() => {
      const open = this.openNow();
      if (open.connections === 0) return;
      this.logger.warn(
        { ...open, after_ms: deadlineMs },
        'connections still open at the drain deadline: closed without an answer',
      );
      for (const socket of this.sockets.keys()) this.cut(socket, 'open at the drain deadline');
    }, deadlineMs);
    // Stop listening at once (new connections are refused), but without Node's http close(),
    // which would also close the idle connections under requests already on their way to them.
    net.Server.prototype.close.call(this.server);
    // Those requests are read (and answered 503) first; then the idle connections are closed.
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const before = this.sockets.size;
    this.server.closeIdleConnections();
    this.stats.idle_closed = [...this.sockets.keys()].filter((s) => s.destroyed).length;
    this.logger.debug(
      { connections: before, idle_closed: this.stats.idle_closed, in_flight: this.unanswered.size },
      'draining HTTP',
    );
    // A connection that has not sent a whole request by the end of the grace is closed (one that
    // is ending after its answer is left to finish).
    const grace = setTimeout(
      () => {
        for (const [socket, open] of this.sockets)
          if (open === 0 && !socket.writableEnded) this.cut(socket, 'no whole request by the end of the grace');
      },
      Math.max(0, graceMs - IDLE_SETTLE_MS),
    );
    this.settle();
    await settled;
    clearTimeout(grace);
    clearTimeout(deadline);
    // Node's own close: stops its timeout checks (and closes nothing more: nothing is left).
    this.server.close();
    return { ms: Math.round(performance.now() - started), ...this.stats };
  }

  private cut(socket: Socket, reason: string): void {
    if (socket.destroyed) return;
    this.stats.cut += 1;
    this.logger.debug(
      { client: `${socket.remoteAddress}:${socket.remotePort}`, reason },
      'connection closed without an answer',
    );
    socket.destroy();
  }
}
