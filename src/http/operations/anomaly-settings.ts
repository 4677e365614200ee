import { AnomalySettingsPatch } from '../../domain/anomaly-settings.ts';
import { AnomalySettingsAnswer } from './answers.ts';
import { WRITERS } from './common.ts';
import { json, operation } from './operation.ts';

/** A project's anomaly settings: every rule's fields, the project's own values over the
 *  deployment's defaults. Everyone who sees the project reads them; admins and members change
 *  them with a partial update. */

export const anomalySettingsOperations = {
  get: operation({
    method: 'get',
    path: '/v1/projects/:id/anomaly-settings',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    summary: 'Anomaly settings',
    description:
      "Every rule's settings: the project's own values over the deployment's defaults (`WATCHLOG_ANOMALY_DEFAULTS`).",
    responses: { 200: json('the settings', AnomalySettingsAnswer) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/projects/:id/anomaly-settings',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    roles: WRITERS,
    summary: 'Change anomaly settings',
    description:
      "Any rules, any of their fields; `null` puts a field back to the deployment's default. A PUT " +
      'that changes nothing records nothing (`updated_at` unchanged).',
    body: {
      what: 'anomaly settings',
      codec: AnomalySettingsPatch,
      example: { brute_force: { threshold: 5 }, silent_service: { enabled: false } },
    },
    responses: { 200: json('the settings', AnomalySettingsAnswer) },
  }),
};
