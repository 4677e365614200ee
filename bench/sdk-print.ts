import type { HostReport, SdkSection, Side } from './sdk.ts';
import { CONNECTIONS, DURATION, verdict } from './support.ts';

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

const row = (name: string, x: Side) => [
  `${name.padEnd(26)} ${x.requestsPerSec.toFixed(0).padStart(7)} req/s   p99 ${x.p99.toFixed(0)} ` +
    `ms   errors ${x.errors}   | paced p50 ${x.pacedP50.toFixed(3)} ms   p99 ` +
    `${x.pacedP99.toFixed(3)} ms   p99.9 ${x.pacedP999.toFixed(3)} ms`,
  `${''.padEnd(26)} slices: ${x.slices.map((v) => v.toFixed(0)).join(' ')} req/s | paced p99 by ` +
    `round ${x.pacedP99s.map((v) => v.toFixed(2)).join(' ')} ms | app CPU ` +
    `${x.cpuPerRequest.toFixed(1)} µs/request`,
];

const hostLines = (r: HostReport): string[] => {
  const h = r.host;
  const d = r.delivery;
  const p99Verdict =
    h.p99Target === null ? '(no target; ' : `${verdict(r.addedP99 < h.p99Target)} (target < ${h.p99Target} ms; `;
  return [
    `sdk ${h.key}: hello-world ${h.app} (GET ${h.route}) with and without ${h.sdk}; ` +
      `${r.pairRatios.length} pairs of processes, autocannon ${DURATION} s per app at ${CONNECTIONS} ` +
      `connections in ${r.ratios.length} alternating slices | paced ${h.rate} req/s to each app, ` +
      `interleaved, in ${r.ratios.length} rounds | load average ${r.load.start.join(' ')} → ` +
      `${r.load.end.join(' ')}`,
    ...row(`bare ${h.key}`, r.bare),
    ...row(`with ${h.sdk}`, r.sdk),
    `throughput with / without (median of the rounds): ${pct(r.ratio)}   ` +
      `${verdict(r.ratio >= h.throughputTarget)} (target >= ${h.throughputTarget * 100}%; by pair ` +
      `${r.pairRatios.map(pct).join(' ')}; rounds ${r.ratios.map((v) => (v * 100).toFixed(0)).join(' ')})`,
    `added p99, paced: ${r.addedP99.toFixed(3)} ms (${r.sdk.pacedP99.toFixed(3)} - ` +
      `${r.bare.pacedP99.toFixed(3)})   ${p99Verdict}median of the ` +
      `rounds' differences ${r.addedP99Rounds.toFixed(3)} ms; added p50 ${r.addedP50.toFixed(3)} ms)`,
    `app CPU per request: +${(r.sdk.cpuPerRequest - r.bare.cpuPerRequest).toFixed(1)} µs ` +
      `(${pct(r.sdk.cpuPerRequest / r.bare.cpuPerRequest - 1)})`,
    `delivery: ${d.received} events in ${d.batches} batches, ${d.distinctKeys} distinct idempotency ` +
      `keys, for ${d.handled} requests answered; sdk stats ${JSON.stringify(d.stats)}   ` +
      `${verdict(d.ok)} (every request delivered exactly once)`,
  ];
};

/** Each host's figures, then the hosts side by side. */
export const printSdk = (s: SdkSection): string[] => {
  const summary = s.hosts.map(
    (r) =>
      `  ${r.host.key.padEnd(8)} throughput ${pct(r.ratio).padStart(6)} ` +
      `${verdict(r.ratio >= r.host.throughputTarget)} (>= ${r.host.throughputTarget * 100}%)   ` +
      `added p99 ${r.addedP99.toFixed(3).padStart(7)} ms   added p50 ${r.addedP50.toFixed(3)} ms   CPU/request ` +
      `${r.bare.cpuPerRequest.toFixed(1)} → ${r.sdk.cpuPerRequest.toFixed(1)} µs   delivery ${verdict(r.delivery.ok)}`,
  );
  return [
    ...s.hosts.flatMap((r) => [...hostLines(r), '']),
    ...s.skipped.map((k) => `sdk ${k.key}: SKIPPED, ${k.reason}`),
    `sdk summary (load average ${s.load.start.join(' ')} → ${s.load.end.join(' ')}):`,
    ...summary,
  ];
};
