import { mkdirSync, writeFileSync } from 'node:fs';
import { ingestBenchmark, printIngest } from './ingest.ts';
import { printQueries, queriesBenchmark } from './queries.ts';
import { monitorsBenchmark, printMonitors } from './monitors.ts';
import { anomaliesBenchmark, printAnomalies } from './anomalies.ts';
import { maskingBenchmark, printMasking } from './masking.ts';
import { dashboardBenchmark, printDashboard } from './dashboard.ts';
import { printVerify, verifyBenchmark } from './verify.ts';
import { sdkBenchmark } from './sdk.ts';
import { printSdk } from './sdk-print.ts';
import { auditorsBenchmark, printAuditors } from './auditors.ts';
import { printRebuild, printStorage, rebuildBenchmark, storageBenchmark } from './rebuild.ts';
import { printRetention, retentionBenchmark } from './retention.ts';
import { printProjector, projectorBenchmark } from './projector.ts';
import { statusPageBenchmark } from './status-page.ts';
import { printStatusPage } from './status-page-print.ts';
import { printSinks, sinksBenchmark } from './sinks.ts';

/** `npm run bench [section…]`: each section measures watchlog beside a baseline from the same
 *  run and prints ratios; targets are reported, not enforced. Results also go to
 *  bench/results/latest.json. */
interface Section {
  name: string;
  run: () => Promise<{ result: unknown; lines: string[] }>;
}

const sections: Section[] = [
  {
    name: 'ingest',
    run: async () => {
      const r = await ingestBenchmark();
      return { result: r, lines: printIngest(r) };
    },
  },
  {
    name: 'queries',
    run: async () => {
      const r = await queriesBenchmark();
      return { result: r, lines: printQueries(r) };
    },
  },
  {
    name: 'monitors',
    run: async () => {
      const r = await monitorsBenchmark();
      return { result: r, lines: printMonitors(r) };
    },
  },
  {
    name: 'anomalies',
    run: async () => {
      const r = await anomaliesBenchmark();
      return { result: r, lines: printAnomalies(r) };
    },
  },
  {
    name: 'masking',
    run: async () => {
      const r = await maskingBenchmark();
      return { result: r, lines: printMasking(r) };
    },
  },
  {
    name: 'dashboard',
    run: async () => {
      const r = await dashboardBenchmark();
      return { result: r, lines: printDashboard(r) };
    },
  },
  {
    name: 'verify',
    run: async () => {
      const r = await verifyBenchmark();
      return { result: r, lines: printVerify(r) };
    },
  },
  {
    name: 'sdk',
    run: async () => {
      const r = await sdkBenchmark();
      return { result: r, lines: printSdk(r) };
    },
  },
  {
    name: 'auditors',
    run: async () => {
      const r = await auditorsBenchmark();
      return { result: r, lines: printAuditors(r) };
    },
  },
  {
    name: 'projector',
    run: async () => {
      const r = await projectorBenchmark();
      return { result: r, lines: printProjector(r) };
    },
  },
  {
    name: 'rebuild',
    run: async () => {
      const r = await rebuildBenchmark();
      return { result: r, lines: printRebuild(r) };
    },
  },
  {
    name: 'storage',
    run: async () => {
      const r = await storageBenchmark();
      return { result: r, lines: printStorage(r) };
    },
  },
  {
    name: 'retention',
    run: async () => {
      const r = await retentionBenchmark();
      return { result: r, lines: printRetention(r) };
    },
  },
  {
    name: 'sinks',
    run: async () => {
      const r = await sinksBenchmark();
      return { result: r, lines: printSinks(r) };
    },
  },
  {
    name: 'status-page',
    run: async () => {
      const r = await statusPageBenchmark();
      return { result: r, lines: printStatusPage(r) };
    },
  },
];

const only = process.argv.slice(2);
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString() };
for (const section of sections) {
  if (only.length > 0 && !only.includes(section.name)) continue;
  process.stderr.write(`running ${section.name}…\n`);
  const { result, lines } = await section.run();
  results[section.name] = result;
  process.stdout.write(`\n${lines.join('\n')}\n`);
}
const dir = new URL('./results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('latest.json', dir), `${JSON.stringify(results, null, 2)}\n`);
