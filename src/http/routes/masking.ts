import { setMaskingRules } from '../../commands/projects.ts';
import { compileMaskingRules } from '../../domain/masking-rules.ts';
import { scanLimitChars } from '../../domain/masking.ts';
import type { RouteDeps } from '../deps.ts';
import type { MaskingAnswer } from '../operations/answers.ts';
import type { maskingOperations } from '../operations/masking.ts';
import { type Handlers, ok } from '../operations/operation.ts';

const rulesOf = async (deps: RouteDeps, projectId: string): Promise<MaskingAnswer> => {
  const own = await deps.readModels.masking.rulesOf(projectId);
  const values = own && compileMaskingRules(own)?.values;
  return {
    project_id: projectId,
    keys: own?.keys ?? [],
    patterns: own?.patterns ?? [],
    scan_limit_chars: values ? scanLimitChars(values.cost) : null,
    updated_at: own?.updated_at ?? null,
  };
};

export const maskingHandlers: Handlers<typeof maskingOperations, RouteDeps> = {
  get: async ({ resource: project }, deps) => ok(await rulesOf(deps, project.id)),
  replace: async ({ resource: project, body: rules, command }, deps) => {
    const { position } = await setMaskingRules(deps.commands, project.id, rules, command);
    await deps.caughtUp(['masking'], position);
    deps.maskingRules.invalidate(project.id);
    return ok(await rulesOf(deps, project.id));
  },
};
