import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, hash, sign } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, leafBytes, leafHash, type Frontier } from '../src/domain/merkle.ts';
import { openCheckpoint, parseVerifierKey } from '../src/verify/note.ts';
import { verifyStream } from '../src/verify/stream.ts';

/** `watchlog verify --stream` on a replayed stream of BENCH_VERIFY_RECORDS records (default
 *  1,000,000 audit events, about 1 KB a line), in records/s against the 100,000 target: with its
 *  worker threads and in one thread, beside a baseline from the same run (the same file read and
 *  cut into lines, each line hashed with SHA-256, nothing else). Then the command itself, as a
 *  process, with its peak RSS. The stream is written by the server's tree code into
 *  .bench/verify-<n>/ once, and reused. The machine's load average is noted before and after:
 *  on a shared machine, what the other work takes of the cores is the figures' largest factor. */

const root = fileURLToPath(new URL('..', import.meta.url));
const RECORDS = Number(process.env.BENCH_VERIFY_RECORDS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_VERIFY_ROUNDS ?? 3);
const TARGET = 100_000;
const PROJECT = '0b7c2a4e-5d1f-4c3b-9a8e-1f2d3c4b5a69';
const ORIGIN = `watchlog.bench/projects/${PROJECT}`;

/** An audit event as ingest stores it (the ingest bench's event, masked, with its stamps). */
const auditEvent = (i: number, at: string) => ({
  id: `evt-${i.toString(36).padStart(8, '0')}`,
  project_id: PROJECT,
  event_type: 'http_request',
  timestamp: at,
  path: `/api/orders/${i}`,
  method: 'POST',
  status_code: i % 17 === 0 ? 500 : 201,
  response_time: 37 + (i % 50),
  identifier: `user-${i % 997}`,
  service_name: 'orders',
  environment: 'production',
  source: 'server',
  user_email: 'jane@example.com',
  user_name: 'Jane',
  user_roles: ['buyer'],
  tenant_id: 'acme',
  ip: '203.0.113.9',
  request_id: `req-${i.toString(16)}`,
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  query_params: { page: '1' },
  request_body: { item: 'sku-1', qty: 2, card: '**** **** **** 1111', password: '[MASKED]' },
  response_body: { ok: true, order_id: `ord-${i}` },
});

interface Fixture {
  dir: string;
  stream: string;
  key: string;
  checkpoints: string[];
  bytes: number;
}

const generate = async (records: number): Promise<Fixture> => {
  const dir = path.join(root, '.bench', `verify-${records}`);
  const fixture = {
    dir,
    stream: path.join(dir, 'records.ndjson'),
    key: path.join(dir, 'key.txt'),
    checkpoints: [path.join(dir, 'half.txt'), path.join(dir, 'latest.txt')],
  };
  const done = path.join(dir, 'done.json');
  if (existsSync(done))
    return { ...fixture, bytes: (JSON.parse(readFileSync(done, 'utf8')) as { bytes: number }).bytes };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const typeAndKey = Buffer.concat([
    Buffer.from([0x01]),
    Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'),
  ]);
  const name = 'watchlog.bench';
  const keyId = createHash('sha256').update(`${name}\n`).update(typeAndKey).digest().subarray(0, 4);
  writeFileSync(fixture.key, `${name}+${keyId.toString('hex')}+${typeAndKey.toString('base64')}\n`);
  const note = (size: number, rootHash: Buffer) => {
    const text = `${ORIGIN}\n${size}\n${rootHash.toString('base64')}\n`;
    return (
      `${text}\n\u2014 ${name} ` +
      `${Buffer.concat([keyId, sign(null, Buffer.from(text), privateKey)]).toString('base64')}\n`
    );
  };
  const out = createWriteStream(fixture.stream);
  let frontier: Frontier = EMPTY_FRONTIER;
  let chunk = '';
  let bytes = 0;
  const start = Date.UTC(2026, 10, 24);
  for (let i = 0; i < records; i += 1) {
    const at = new Date(start + i * 10).toISOString();
    const r = {
      stream: `audit-${PROJECT}`,
      revision: i,
      type: 'AuditEventRecorded',
      id: `0b7c${i.toString(16).padStart(12, '0')}`,
      data: auditEvent(i, at),
      metadata: { recorded_at: at },
    };
    const leaf = leafHash(leafBytes(r));
    frontier = appendLeaf(frontier, leaf).frontier;
    chunk += `${JSON.stringify({
      leaf_index: i,
      position: String(1000 + i),
      ...r,
      recorded_at: at,
      leaf_hash: leaf.toString('base64'),
    })}\n`;
    if (chunk.length > 1 << 20) {
      bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
    if (i + 1 === Math.floor(records / 2)) writeFileSync(fixture.checkpoints[0]!, note(i + 1, frontierRoot(frontier)));
  }
  bytes += Buffer.byteLength(chunk);
  out.end(chunk);
  await once(out, 'finish');
  writeFileSync(fixture.checkpoints[1]!, note(records, frontierRoot(frontier)));
  writeFileSync(done, JSON.stringify({ bytes }));
  return { ...fixture, bytes };
};

/** The baseline: the same file read in the same chunks and cut into lines, each line hashed
 *  with SHA-256, in this thread: reading and hashing, without parsing or canonical JSON. */
const hashLines = async (file: string): Promise<number> => {
  let lines = 0;
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const parts = (rest + (chunk as string)).split('\n');
    rest = parts.pop()!;
    for (const line of parts) hash('sha256', line, 'buffer');
    lines += parts.length;
  }
  return lines;
};

const perSecond = async (run: () => Promise<number>): Promise<number> => {
  const started = performance.now();
  const count = await run();
  return count / ((performance.now() - started) / 1000);
};

/** The command as an auditor runs it (compiled: `npm run bench` builds first), with its peak RSS
 *  (VmHWM, read from /proc while it runs). */
const runCli = async (
  fixture: Fixture,
): Promise<{ seconds: number; code: number | null; peakRssMb: number | null }> => {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'dist/src/main.js'),
      'verify',
      '--key',
      fixture.key,
      ...fixture.checkpoints.flatMap((c) => ['--checkpoint', c]),
      '--stream',
      fixture.stream,
    ],
    { stdio: 'ignore' },
  );
  let peakKb: number | null = null;
  const poll = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peakKb = Number(match[1]);
    } catch {
      // not started yet, or gone
    }
  }, 50);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(poll);
  return {
    seconds: (performance.now() - started) / 1000,
    code,
    peakRssMb: peakKb === null ? null : Math.round(peakKb / 1024),
  };
};

export interface VerifyReport {
  records: number;
  megabytes: number;
  threads: number;
  /** records/s of verifyStream with its default worker threads, one per round. */
  verify: number[];
  /** records/s of verifyStream in one thread, one per round. */
  oneThread: number[];
  /** lines/s of the baseline, one per round. */
  baseline: number[];
  cli: { seconds: number; code: number | null; peakRssMb: number | null };
  /** The 1, 5 and 15 minute load averages before the rounds and after the process. */
  load: { before: number[]; after: number[] };
}

const load = () => loadavg().map((v) => Math.round(v * 100) / 100);

export const verifyBenchmark = async (): Promise<VerifyReport> => {
  process.stderr.write(`  writing or reusing a stream of ${RECORDS} records…\n`);
  const fixture = await generate(RECORDS);
  const key = parseVerifierKey(readFileSync(fixture.key, 'utf8').trim());
  const checkpoints = fixture.checkpoints.map((c) => openCheckpoint(readFileSync(c, 'utf8'), [key]));
  const check = (options: { threads?: number }) => async () => {
    const result = await verifyStream(createReadStream(fixture.stream, { highWaterMark: 1 << 20 }), checkpoints, {
      allowMissing: false,
      ...options,
    });
    if (!result.ok) throw new Error(`the generated stream does not verify: ${result.failure.message}`);
    return result.report.leaves;
  };
  const report: VerifyReport = {
    records: RECORDS,
    megabytes: Math.round(fixture.bytes / 1e6),
    threads: availableParallelism(),
    verify: [],
    oneThread: [],
    baseline: [],
    cli: { seconds: 0, code: null, peakRssMb: null },
    load: { before: load(), after: [] },
  };
  // Alternating, so that the shared machine's noise falls on all three.
  for (let round = 0; round < ROUNDS; round += 1) {
    report.baseline.push(await perSecond(() => hashLines(fixture.stream)));
    report.verify.push(await perSecond(check({})));
    report.oneThread.push(await perSecond(check({ threads: 0 })));
  }
  report.cli = await runCli(fixture);
  report.load.after = load();
  return report;
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const printVerify = (r: VerifyReport): string[] => {
  const best = Math.max(...r.verify);
  return [
    `verify (offline: a stream of ${fmt(r.records)} records, ${fmt(r.megabytes)} MB, 2 checkpoints; ` +
      `${r.threads} cores)`,
    `  verifyStream (${r.threads > 1 ? `${r.threads} threads` : 'one thread'}):   ` +
      `${r.verify.map(fmt).join(', ')} records/s (median ${fmt(median(r.verify))}; target >= ` +
      `${fmt(TARGET)}: ${best >= TARGET ? 'PASS' : 'FAIL'} at best)`,
    `  verifyStream (one thread):  ${r.oneThread.map(fmt).join(', ')} records/s (median ${fmt(median(r.oneThread))})`,
    `  baseline (read + SHA-256 per line, one thread): ${r.baseline.map(fmt).join(', ')} lines/s ` +
      `(median ${fmt(median(r.baseline))}; verify at ` +
      `${Math.round((median(r.verify) / median(r.baseline)) * 100)} % of it)`,
    `  watchlog verify (the process): ${r.cli.seconds.toFixed(1)} s, exit ${r.cli.code}, ` +
      `${fmt(r.records / r.cli.seconds)} records/s with start-up, peak RSS ${r.cli.peakRssMb ?? '?'} MB`,
    `  load average (1, 5, 15 min): ${r.load.before.join(', ')} before, ${r.load.after.join(', ')} after`,
  ];
};
