// throwaway-postgres: a PostgreSQL cluster of its own, on loopback, removed when done, for the
// tools (npm run database, the benchmarks, the soak) and the tests.
export {
  destroyClusterAt,
  freePort,
  postgresBinDir,
  startThrowawayCluster,
  whyNoPostgresBinaries,
  type Cluster,
} from './throwaway-cluster.js';
export { inSchema } from './in-schema.js';
