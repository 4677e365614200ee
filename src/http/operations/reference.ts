import { ConfigSchemaAnswer, OpenApiDocumentAnswer } from './answers.ts';
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
};
