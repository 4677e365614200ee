import { MaskingRulesBody } from '../../domain/masking-rules.ts';
import { MaskingAnswer } from './answers.ts';
import { WRITERS } from './common.ts';
import { json, operation } from './operation.ts';

/** A project's own masking rules, over the built-in ones: extra key names and value patterns.
 *  Everyone who sees the project reads them; admins and members replace them. */

export const maskingOperations = {
  get: operation({
    method: 'get',
    path: '/v1/projects/:id/masking',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    summary: 'Masking rules',
    description: "The project's own rules, over the built-in ones.",
    responses: { 200: json('the rules', MaskingAnswer) },
  }),
  replace: operation({
    method: 'put',
    path: '/v1/projects/:id/masking',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    roles: WRITERS,
    summary: 'Replace masking rules',
    description:
      'Extra secret key names and RE2 value patterns; each faulty entry is named (`patterns.0`). ' +
      'Applied to ingest within a second.',
    body: {
      what: 'masking rules',
      codec: MaskingRulesBody,
      example: { keys: ['national_id'], patterns: ['\\bAKIA[0-9A-Z]{16}\\b'] },
    },
    responses: { 200: json('the rules', MaskingAnswer) },
  }),
};
