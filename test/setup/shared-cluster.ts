// Where tap's `before` script (database-up.ts) leaves the run's shared PostgreSQL cluster for the
// test files (helpers/postgres.ts), and `after` (database-down.ts) finds it to remove.
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root.js';

export const SHARED_CLUSTER_FILE = join(PROJECT_ROOT, '.tap', 'test-database.json');

export interface SharedCluster {
  url: string;
  dataDir: string;
}
