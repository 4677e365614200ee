import { rmSync } from 'node:fs';
import path from 'node:path';
import { openSqliteReadModels } from '../../src/views/sqlite/index.ts';
import { leasesContract } from '../contracts/leases.ts';
import { readModelsContract } from '../contracts/read-models.ts';
import { tempDir } from '../helpers/server.ts';

const open = async () => {
  const dir = tempDir();
  const readModels = openSqliteReadModels(path.join(dir, 'views.db'));
  return {
    readModels,
    cleanup: async () => {
      await readModels.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

readModelsContract('sqlite', open);
leasesContract('sqlite', open);
