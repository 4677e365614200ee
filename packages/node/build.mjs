// Bundles the SDK into one ESM file with @watchlog/masking inlined, so the published package has
// no runtime dependencies, then emits the type definitions with tsc --emitDeclarationOnly.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dist = here('./dist');

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [here('./src/index.ts')],
  outfile: here('./dist/index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // Node's built-ins stay imports (platform: 'node'); everything else is inlined.
  logLevel: 'warning',
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', here('./tsconfig.build.json')], { stdio: 'inherit' });

// The sources import each other as './x.ts' (run directly by tsx in the tests); declaration
// emit keeps that, and consumers resolve './x.js' to './x.d.ts'.
for (const entry of readdirSync(dist, { recursive: true })) {
  const file = `${dist}/${entry}`;
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2');
  if (rewritten !== text) writeFileSync(file, rewritten);
}
