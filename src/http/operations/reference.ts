import * as t from 'io-ts';
import { ConfigAppliedBody } from '../../domain/self-audit-config.ts';
import { ConfigSchemaAnswer, OpenApiDocumentAnswer } from './answers.ts';
import { WRITERS } from './common.ts';
import { json, operation } from './operation.ts';

export const referenceOperations = {
  description: operation({
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'Reference',
    auth: 'none',
    summary: 'This description',
    description:
      'The OpenAPI 3.1 description of every endpoint, generated from the codecs the server decodes ' +
      'with. `/docs` renders it.',
    responses: { 200: json('the description', OpenApiDocumentAnswer) },
  }),
  configSchema: operation({
    method: 'get',
    path: '/v1/config.schema.json',
    tag: 'Reference',
    auth: 'none',
    summary: "The configuration file's schema",
    description:
      'The JSON Schema (2020-12) of the file `watchlog plan` and `watchlog apply` read, generated from the ' +
      'codecs the API decodes with; editors check a file against it (`# yaml-language-server: $schema=…`). ' +
      'The repository ships the same document as schemas/watchlog-config.schema.json.',
    responses: { 200: json('the schema', ConfigSchemaAnswer) },
  }),
  configApplied: operation({
    method: 'post',
    path: '/v1/config/applies',
    tag: 'Reference',
    auth: 'jwt',
    keyScope: 'config',
    roles: WRITERS,
    summary: 'Record an applied configuration file',
    description:
      '`watchlog apply` ends with this call: one `system.access` row of the built-in project naming the ' +
      'file and each change the apply made, under the request id (`X-Request-ID`) its calls shared. ' +
      'It changes nothing else; each change is a row of its own already.',
    body: {
      what: 'applied configuration file',
      codec: ConfigAppliedBody,
      example: {
        file: 'watchlog.yaml',
        changes: [
          { action: 'change', kind: 'monitor', project: 'shop', name: 'checkout-api', fields: ['interval_seconds'] },
        ],
      },
    },
    responses: { 201: json('recorded', t.type({ id: t.string, request_id: t.string })) },
  }),
};
