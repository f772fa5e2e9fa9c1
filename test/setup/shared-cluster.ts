// Where tap's `before` script (database-up.ts) leaves the run's shared PostgreSQL cluster for the
// test files (helpers/postgres.ts), and `after` (database-down.ts) finds it to remove.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { destroyClusterAt } from '../../scripts/postgres/throwaway-cluster.js';
import { PROJECT_ROOT } from '../../src/project-root.js';

export const SHARED_CLUSTER_FILE = join(PROJECT_ROOT, '.tap', 'test-database.json');

export interface SharedCluster {
  url: string;
  dataDir: string;
}

/* c8 ignore start -- tap measures its before and after scripts without the coverage map, which leaves test/ out */
/** Stops and removes the cluster the file names, and the file: after a run, or left by an interrupted one. */
export function removeSharedCluster(): void {
  if (!existsSync(SHARED_CLUSTER_FILE)) return;
  destroyClusterAt((JSON.parse(readFileSync(SHARED_CLUSTER_FILE, 'utf8')) as SharedCluster).dataDir);
  rmSync(SHARED_CLUSTER_FILE);
}
/* c8 ignore stop */
