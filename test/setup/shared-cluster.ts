// Where tap's `before` script (database-up.ts) leaves the run's shared PostgreSQL cluster for the
// test files (helpers/postgres.ts), and `after` (database-down.ts) finds it to remove.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { destroyClusterAt } from 'throwaway-postgres';
import { PROJECT_ROOT } from '../../src/project-root.js';

export const SHARED_CLUSTER_FILE = join(PROJECT_ROOT, '.tap', 'test-database.json');

/**
 * SHARED_TEST_DATABASE=off: a tap run whose tests start their own clusters or none (the bench smoke
 * test, run by test:all beside the deployment test's tap run) neither starts nor removes the shared
 * one. Two runs in one project would otherwise race on SHARED_CLUSTER_FILE, and one run's cluster
 * was left running, unnamed (one per fresh-clone CI run, issue 49's runs).
 */
export const sharedClusterWanted = () => process.env['SHARED_TEST_DATABASE'] !== 'off';

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
