import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The API reference at /docs (docs/index.html, src/docs.ts), built apart from the dashboard
// (vite.config.ts) into the same dist/: the two share no chunk, so the dashboard's bundle, held
// by a budget (docs/benchmarks.md), is what it would be without it. Swagger UI is one chunk of
// 1.5 MB that only /docs loads. No inline script: the CSP is script-src 'self'.
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1600,
    // public/ is the dashboard's build's to copy.
    copyPublicDir: false,
    rolldownOptions: { input: fileURLToPath(new URL('docs/index.html', import.meta.url)) },
  },
});
