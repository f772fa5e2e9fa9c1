// tap's `after` (.taprc): removes the cluster test/setup/database-up.ts started for the run.
import { removeSharedCluster } from './shared-cluster.js';

removeSharedCluster();
