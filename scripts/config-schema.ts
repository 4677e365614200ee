import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configFileSchema } from '../src/http/openapi/config-schema.ts';

/** Writes schemas/watchlog-config.schema.json (what `GET /v1/config.schema.json` serves) from the
 *  codecs; `--check` exits 1 when the shipped file is not what they give. */

export const SHIPPED = fileURLToPath(new URL('../schemas/watchlog-config.schema.json', import.meta.url));

export const configSchemaText = (): string => `${JSON.stringify(configFileSchema(), null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = configSchemaText();
  if (process.argv.includes('--check')) {
    if (readFileSync(SHIPPED, 'utf8') !== text) {
      process.stderr.write(`${SHIPPED} is not current: run npm run config-schema\n`);
      process.exit(1);
    }
  } else writeFileSync(SHIPPED, text);
}
