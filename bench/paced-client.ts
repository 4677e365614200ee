import { pacedLoad } from './status-page-load.ts';

/** The status page section's paced load in a process of its own (`pacedLoadApart`), so that
 *  neither the bench's heap (its collections stall it for tens of ms) nor the monitors' targets
 *  it serves delay the requests: PACED_URL, PACED_HEADERS (JSON), PACED_RATE a second for
 *  PACED_SECONDS after PACED_WARMUP unmeasured, or until its stdin closes; the result, as JSON, on stdout. */
let stopped = false;
process.stdin.on('end', () => {
  stopped = true;
});
process.stdin.resume();
const result = await pacedLoad(
  process.env.PACED_URL ?? '',
  JSON.parse(process.env.PACED_HEADERS ?? '{}') as Record<string, string>,
  Number(process.env.PACED_RATE),
  {
    seconds: Number(process.env.PACED_SECONDS ?? Number.POSITIVE_INFINITY),
    stop: () => stopped,
    warmupSeconds: Number(process.env.PACED_WARMUP ?? 0),
  },
);
const { user, system } = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ...result, clientCpuMs: (user + system) / 1000 })}\n`);
process.exit(0);
