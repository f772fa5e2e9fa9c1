// tap's `after` (.taprc): removes the cluster test/setup/database-up.ts started for the run.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { destroyClusterAt } from '../../scripts/postgres/throwaway-cluster.js';
import { SHARED_CLUSTER_FILE, type SharedCluster } from '../helpers/postgres.js';

if (existsSync(SHARED_CLUSTER_FILE)) {
  destroyClusterAt((JSON.parse(readFileSync(SHARED_CLUSTER_FILE, 'utf8')) as SharedCluster).dataDir);
  rmSync(SHARED_CLUSTER_FILE);
}
