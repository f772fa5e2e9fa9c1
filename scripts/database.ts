// `npm run database`: a throwaway PostgreSQL for trying the service on a laptop. Starts a cluster from
// Debian's server binaries, prints the DATABASE_URL to start the service with, and removes the
// cluster with all its pets when stopped (Ctrl-C).
import { startThrowawayCluster, whyNoPostgresBinaries } from 'throwaway-postgres';

const missing = whyNoPostgresBinaries();
if (missing !== undefined) {
  console.error(`npm run database: ${missing}`);
  process.exit(2);
}
const cluster = await startThrowawayCluster();
let stopped = false;
const stop = () => {
  if (stopped) return;
  stopped = true;
  cluster.destroy();
  console.error('\nThe throwaway database is stopped and removed.');
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
process.once('SIGHUP', stop);
console.log(`A throwaway PostgreSQL is listening on 127.0.0.1:${cluster.port} (trust authentication, local only).
Start the service on it, in another terminal:

  DATABASE_URL=${cluster.url} npm start

Ctrl-C here stops it and removes every pet it holds.`);
// Keeps the process (and so the cluster) alive until a signal arrives.
setInterval(() => undefined, 1 << 30);
