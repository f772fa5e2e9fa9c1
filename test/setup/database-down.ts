// tap's `after` (.taprc): removes the cluster test/setup/database-up.ts started for the run.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { destroyClusterAt } from '../../scripts/postgres/throwaway-cluster.js';
import { SHARED_CLUSTER_FILE, type SharedCluster } from './shared-cluster.js';

/* c8 ignore start -- tap measures its before and after scripts without the coverage map, which leaves test/ out */
if (existsSync(SHARED_CLUSTER_FILE)) {
  destroyClusterAt((JSON.parse(readFileSync(SHARED_CLUSTER_FILE, 'utf8')) as SharedCluster).dataDir);
  rmSync(SHARED_CLUSTER_FILE);
}
/* c8 ignore stop */
