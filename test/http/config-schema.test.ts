import { readFileSync } from 'node:fs';
import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { configSchemaText } from '../../scripts/config-schema.ts';
import { repoPath } from '../helpers/root.ts';
import { api, startTestServer } from '../helpers/server.ts';

/** The configuration file's JSON Schema is generated from the codecs the API decodes with: the
 *  shipped file is what they give, the API serves the same, and it accepts the documented
 *  example and refuses what the file's codecs refuse. */

// From the repository's root: compiled, this file runs from dist/test/.
const SHIPPED = repoPath('schemas', 'watchlog-config.schema.json');
const schema = () => JSON.parse(readFileSync(SHIPPED, 'utf8')) as Record<string, unknown>;

test('schemas/watchlog-config.schema.json is what the codecs give: run npm run config-schema when this fails', (t) => {
  t.is(readFileSync(SHIPPED, 'utf8'), configSchemaText());
});

test('GET /v1/config.schema.json serves the shipped schema, without authentication', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop({ remove: true }));
  const res = await api(server.url, 'GET', '/v1/config.schema.json');
  t.is(res.status, 200);
  t.deepEqual(res.body, schema());
});

/** The README's example, which docs/config-file.md repeats. */
const readmeExample = (): unknown => {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const block = /```yaml\n(# yaml-language-server[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no example configuration file');
  return parse(block[1]!);
};

test('the schema accepts the README example and refuses unknown keys and the API fields the file omits', (t) => {
  // Formats are annotations here: a `${NAME}` stands where a URL will be.
  const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(schema());
  const example = readmeExample();
  t.true(validate(example), JSON.stringify(validate.errors));
  const project = (extra: Record<string, unknown>) => ({
    projects: [{ name: 'shop', monitors: [{ name: 'api', url: 'https://x.example/h', ...extra }] }],
  });
  t.true(validate(project({ interval_seconds: 30 })));
  t.false(validate(project({ interval_seconds: 5 })));
  t.false(validate(project({ colour: 'red' })));
  t.false(validate(project({ project_id: '00000000-0000-4000-8000-000000000001' })));
  t.false(validate(project({ managed_by: 'config-file' })));
  const channel = { name: 'ops', type: 'slack', url: 'https://hooks.slack.com/x' };
  t.true(validate({ projects: [{ name: 'shop', channels: [channel] }] }));
  t.false(validate({ projects: [{ name: 'shop', channels: [{ ...channel, type: 'carrier-pigeon' }] }] }));
});
