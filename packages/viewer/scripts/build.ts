/** Bundles src/ into one minified ES module for a page's `<script type="module">` and for
 *  bundlers, dist/watchlog-viewer.js (with its source map); the type definitions come from
 *  `tsc -p tsconfig.build.json`, which the package's build script runs next. */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist', import.meta.url));

// From scratch: a declaration left by a module since removed would otherwise ship.
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
  outfile: `${dist}/watchlog-viewer.js`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // Private class members (#x) and custom elements: every browser with both runs ES2022.
  target: 'es2022',
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
