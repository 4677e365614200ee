import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the API process at / (src/http/dashboard.ts): hashed assets under /assets/ get a
// year-long immutable cache, index.html none. No inline script: the CSP is script-src 'self'.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: { '/v1': 'http://127.0.0.1:3000', '/healthz': 'http://127.0.0.1:3000', '/readyz': 'http://127.0.0.1:3000' },
  },
});
