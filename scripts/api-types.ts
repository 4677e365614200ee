import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/http/openapi/document.ts';
import { clientTypes } from '../src/http/openapi/typescript.ts';
import { apiOperations } from '../src/http/operations/table.ts';
import { MONITORS_PER_PROJECT } from '../src/domain/monitor.ts';

/** Writes the dashboard's client types (web/src/api/operations.gen.ts) from the operation table;
 *  `--check` exits 1 when the file is not what the table gives. */

export const GENERATED = fileURLToPath(new URL('../web/src/api/operations.gen.ts', import.meta.url));

/** The types of every operation the dashboard may call: the API as any deployment serves it. */
export const generatedClientTypes = (): string =>
  clientTypes(openApiDocument(apiOperations({ batchMaxEvents: 1000 }), { dashboard: false, metrics: false }), [
    {
      name: 'MONITORS_PER_PROJECT',
      value: MONITORS_PER_PROJECT,
      description: 'The most monitors a project may have (src/domain/monitor.ts): a 409 past it.',
    },
  ]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generatedClientTypes();
  if (process.argv.includes('--check')) {
    const current = readFileSync(GENERATED, 'utf8');
    if (current !== text) {
      process.stderr.write(`${GENERATED} is not current: run npm run api-types\n`);
      process.exit(1);
    }
  } else writeFileSync(GENERATED, text);
}
