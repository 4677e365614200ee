import { randomUUID } from 'node:crypto';
import http from 'node:http';

/** Stands in for watchlog's `POST /v1/audit/batch` in the SDK benchmark, as cheaply as it can:
 *  it shares the machine's two cores with the host being measured, so while the load runs it
 *  only counts a batch's events without parsing it (each carries one idempotency key), keeps
 *  the bytes, and answers 202 with an answer of the real shape and size, made once per batch
 *  size. `GET /count` says how many events arrived, and, read from the kept bytes once the load
 *  is over, how many distinct idempotency keys they carried (every event once: equal counts). */
const KEY = Buffer.from('"idempotency_key":"');
const answers = new Map<number, Buffer>();
const answerFor = (n: number): Buffer => {
  let answer = answers.get(n);
  if (!answer) {
    answer = Buffer.from(
      JSON.stringify({
        accepted: Array.from({ length: n }, (_, index) => ({ index, id: randomUUID() })),
        rejected: [],
      }),
    );
    answers.set(n, answer);
  }
  return answer;
};

let events = 0;
let batches = 0;
const bodies: Buffer[] = [];

const distinctKeys = (): number => {
  const keys = new Set<string>();
  for (const body of bodies) {
    for (let at = body.indexOf(KEY); at !== -1; at = body.indexOf(KEY, at + KEY.length)) {
      const start = at + KEY.length;
      keys.add(body.toString('latin1', start, body.indexOf(0x22, start)));
    }
  }
  return keys.size;
};

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.end(
      JSON.stringify(req.url === '/count?keys' ? { events, batches, keys: distinctKeys() } : { events, batches }),
    );
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    let n = 0;
    for (let at = body.indexOf(KEY); at !== -1; at = body.indexOf(KEY, at + KEY.length)) n += 1;
    events += n;
    batches += 1;
    bodies.push(body);
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(answerFor(n));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
