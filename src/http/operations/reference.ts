import { OpenApiDocumentAnswer } from './answers.ts';
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
};
