import { mkdirSync, writeFileSync } from 'node:fs';
import { ingestBenchmark, printIngest } from './ingest.ts';

/** `npm run bench`: each section measures watchlog beside a baseline from the same run and
 *  prints ratios; targets are reported, not enforced. Results also go to bench/results/latest.json. */
interface Section<R> { name: string; run: () => Promise<R>; print: (r: R) => string[] }

const sections: Section<any>[] = [
  { name: 'ingest', run: ingestBenchmark, print: printIngest },
];

const only = process.argv.slice(2);
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString() };
for (const section of sections) {
  if (only.length > 0 && !only.includes(section.name)) continue;
  process.stderr.write(`running ${section.name}…\n`);
  const result = await section.run();
  results[section.name] = result;
  process.stdout.write(`\n${section.print(result).join('\n')}\n`);
}
const dir = new URL('./results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('latest.json', dir), `${JSON.stringify(results, null, 2)}\n`);
