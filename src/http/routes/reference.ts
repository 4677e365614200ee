import type { RouteDeps } from '../deps.ts';
import { configFileSchema } from '../openapi/config-schema.ts';
import { recordConfigApply } from '../../commands/self-audit.ts';
import { created, type Handlers, ok } from '../operations/operation.ts';
import type { referenceOperations } from '../operations/reference.ts';

export const referenceHandlers: Handlers<typeof referenceOperations, RouteDeps> = {
  description: (_, deps) => ok(deps.openApi()),
  configSchema: () => ok(configFileSchema()),
  configApplied: async ({ body, principal, command, ctx }, deps) => {
    const requestId = ctx.state.correlationId;
    const { id } = await recordConfigApply(
      deps.commands,
      { ...body, actor: principal.actor, address: ctx.request.ip || 'unknown', requestId, at: deps.now() },
      command,
    );
    return created({ id, request_id: requestId });
  },
};
