// tap's `before` (.taprc): one throwaway PostgreSQL cluster for every test file of the run, instead of
// one each (initdb and a start, about a second, for each of ten files). Its connection string goes
// to a file that test/helpers/postgres.ts reads; test/setup/database-down.ts removes it after the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { startThrowawayCluster, whyNoPostgresBinaries } from 'throwaway-postgres';
import { removeSharedCluster, SHARED_CLUSTER_FILE, sharedClusterWanted, type SharedCluster } from './shared-cluster.js';

// A cluster an interrupted run left behind goes first.
if (sharedClusterWanted()) removeSharedCluster();
/* c8 ignore start -- tap measures its before and after scripts without the coverage map, which leaves test/ out */
// Without server binaries each test file says why it skips, or fails where they are required.
if (sharedClusterWanted() && whyNoPostgresBinaries() === undefined && process.env['TEST_DATABASE_URL'] === undefined) {
  const { url, dataDir } = await startThrowawayCluster();
  mkdirSync(dirname(SHARED_CLUSTER_FILE), { recursive: true });
  writeFileSync(SHARED_CLUSTER_FILE, JSON.stringify({ url, dataDir } satisfies SharedCluster));
}
/* c8 ignore stop */
