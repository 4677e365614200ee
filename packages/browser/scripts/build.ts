/** Bundles src/ into one minified ESM file for browsers and bundlers, dist/index.js (with its
 *  source map). The type definitions come from `tsc -p tsconfig.build.json`, which the package's
 *  build script runs next. */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist', import.meta.url));

// From scratch: a declaration left by a module since removed would otherwise ship.
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
  outfile: `${dist}/index.js`,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  // ES2020 keeps `?.` and `??` as they are (smaller): every browser with keepalive fetch has them.
  target: 'es2020',
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
