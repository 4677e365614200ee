import { ConfigFile } from '../../domain/config-file.ts';
import type { JsonSchema } from '../../domain/json-schema.ts';
import { jsonSchemaOf } from './schema.ts';

/** The JSON Schema of the configuration file (`GET /v1/config.schema.json`, and
 *  schemas/watchlog-config.schema.json in the repository), generated from the codecs the file is
 *  decoded with, which are the API's own: editors complete and check what `watchlog plan`
 *  accepts. Pure. */

export const CONFIG_SCHEMA_ID = 'https://watchlog.dev/schemas/watchlog-config.schema.json';

/** An item of the file is the API's create body without the fields the file does not give:
 *  the project it is listed under, and the mark `apply` sets. */
const FILE_OMITS = new Set(['project_id', 'managed_by']);

const withoutOmitted = (schema: JsonSchema): JsonSchema => {
  const out: JsonSchema = { ...schema };
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([key]) => !FILE_OMITS.has(key))
        .map(([key, value]) => [key, withoutOmitted(value)]),
    );
  if (schema.required) {
    const required = schema.required.filter((key) => !FILE_OMITS.has(key));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (schema.items) out.items = withoutOmitted(schema.items);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const)
    if (schema[key]) out[key] = schema[key].map(withoutOmitted);
  if (typeof schema.additionalProperties === 'object')
    out.additionalProperties = withoutOmitted(schema.additionalProperties);
  return out;
};

export type ConfigSchema = JsonSchema & {
  $schema: string;
  $id: string;
  title: string;
  description: string;
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  additionalProperties: boolean;
};
let generated: ConfigSchema | undefined;

export const configFileSchema = (): ConfigSchema => {
  const file = withoutOmitted(jsonSchemaOf(ConfigFile));
  generated ??= {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: CONFIG_SCHEMA_ID,
    title: 'watchlog configuration file',
    description:
      'Projects by name with their monitors, notification channels, status pages, maintenance windows, ' +
      'masking, retention and anomaly settings, for `watchlog plan` and `watchlog apply` (docs/config-file.md). ' +
      `A string may read \`\${NAME}\` from the environment.`,
    ...file,
    type: 'object',
    properties: file.properties ?? {},
    required: file.required ?? [],
    additionalProperties: file.additionalProperties !== false,
  };
  return generated;
};
