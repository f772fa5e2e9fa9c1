// tap's `after` (.taprc): removes the cluster test/setup/database-up.ts started for the run.
import { removeSharedCluster, sharedClusterWanted } from './shared-cluster.js';

if (sharedClusterWanted()) removeSharedCluster();
