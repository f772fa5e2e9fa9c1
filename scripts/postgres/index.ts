// throwaway-postgres: a PostgreSQL cluster of its own, on loopback, removed when done, for the
// tools (npm run database, the benchmarks, the soak) and the tests.
export {
  destroyClusterAt,
  freePort,
  postgresBinDir,
  startStreamingReplica,
  startThrowawayCluster,
  whyNoPostgresBinaries,
  type Cluster,
  type Replica,
} from './throwaway-cluster.js';
export { inSchema } from './in-schema.js';
