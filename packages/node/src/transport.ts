import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';

/** One delivery attempt's outcome: the server's answer, or why there was none. */
export type Attempt =
  | { kind: 'answered'; status: number; retryAfter: string | undefined; text: string }
  | { kind: 'network'; reason: string };

/** The answers are small (an id per event); anything larger is not read. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** POSTs batches over node:http(s) with its own keep-alive agent, so the application's global
 *  agent and its socket limits are never shared. Every attempt settles: a timeout, a reset or an
 *  abort becomes a `network` outcome, never an exception. */
export class Transport {
  #url: URL;
  #apiKey: string;
  #timeoutMs: number;
  #agent: http.Agent;
  #request: typeof http.request;
  #inFlight = new Set<ClientRequest>();

  constructor(url: URL, apiKey: string, timeoutMs: number, sockets: number) {
    this.#url = url;
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    const secure = url.protocol === 'https:';
    // Node unrefs idle keep-alive sockets, so a pooled connection never holds the process open.
    this.#agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: sockets });
    this.#request = secure ? https.request : http.request;
  }

  post(body: string): Promise<Attempt> {
    return new Promise<Attempt>((resolve) => {
      let settled = false;
      const settle = (attempt: Attempt) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#inFlight.delete(req);
        resolve(attempt);
      };
      const req = this.#request(this.#url, {
        method: 'POST',
        agent: this.#agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-api-key': this.#apiKey,
          'user-agent': 'watchlog-node',
        },
      });
      this.#inFlight.add(req);
      // One deadline for the whole attempt: connecting, sending and reading the answer.
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
      timer.unref();
      req.on('error', (error: NodeJS.ErrnoException) =>
        settle({ kind: 'network', reason: error.code ?? error.message }),
      );
      let answering = false;
      req.on('close', () => {
        if (!answering) settle({ kind: 'network', reason: 'connection closed before an answer' });
      });
      req.on('response', (res: IncomingMessage) => {
        answering = true;
        // Cut off mid-answer: whether the events were stored is unknown, and the retry's
        // idempotency keys will tell.
        res.on('close', () => {
          if (!res.complete) settle({ kind: 'network', reason: 'connection closed during the answer' });
        });
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        res.on('error', (error: NodeJS.ErrnoException) =>
          settle({ kind: 'network', reason: error.code ?? error.message }),
        );
        res.on('end', () => {
          const text = size <= MAX_ANSWER_BYTES ? Buffer.concat(chunks).toString('utf8') : '';
          settle({
            kind: 'answered',
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            text,
          });
        });
      });
      req.end(body);
    });
  }

  /** Ends every attempt in flight now (each settles as a network outcome). */
  abortAll(): void {
    for (const req of this.#inFlight) req.destroy(new Error('aborted by close()'));
  }

  destroy(): void {
    this.abortAll();
    this.#agent.destroy();
  }
}
