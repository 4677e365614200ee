import test from 'ava';
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
};

test('the bundle a page loads is at most 40 KB gzipped, and the package has no dependencies', async (t) => {
  const built = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const bytes = built.outputFiles[0]!.contents;
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  t.log(`${bytes.length} bytes, ${gzipped} gzipped`);
  t.true(gzipped <= 40 * 1024, `${gzipped} bytes gzipped`);
  t.deepEqual(Object.keys(manifest.dependencies ?? {}), []);
});

test('no module of the component writes HTML from a string: every value lands as text', (t) => {
  for (const file of ['element.ts', 'detail.ts', 'dom.ts']) {
    const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
    t.false(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(source), file);
  }
});
