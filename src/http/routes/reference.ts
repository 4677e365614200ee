import type { RouteDeps } from '../deps.ts';
import { configFileSchema } from '../openapi/config-schema.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import type { referenceOperations } from '../operations/reference.ts';

export const referenceHandlers: Handlers<typeof referenceOperations, RouteDeps> = {
  description: (_, deps) => ok(deps.openApi()),
  configSchema: () => ok(configFileSchema()),
};
