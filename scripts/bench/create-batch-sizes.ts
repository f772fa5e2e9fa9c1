// What one batch statement of creates costs by its size: the measurement behind the default of
// DATABASE_WRITE_BATCH_MAX (docs/performance.md). On a throwaway cluster (fsync on), once with
// PostgreSQL's own commit latency and once with 1 ms more (commit_delay), one connection sends the
// create-pets statement with 1, 10, 100 and 1,000 pets, 100 times each after 20 to warm up.
//   npx tsx scripts/bench/create-batch-sizes.ts
import pg from 'pg';
import { migrate } from '../../src/store/postgres/migrate.js';
import { STATEMENTS } from '../../src/store/postgres/postgres-pet-store.js';
import { startThrowawayCluster } from 'throwaway-postgres';

const SIZES = [1, 10, 100, 1000];
const RUNS = 100;

for (const commitDelayMicroseconds of [0, 1000]) {
  const cluster = await startThrowawayCluster({ commit_delay: String(commitDelayMicroseconds), commit_siblings: '0' });
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  try {
    await migrate(pool);
    for (const size of SIZES) {
      const pets = Array.from({ length: size }, (_, index) => index);
      const values = [pets.map((index) => `pet ${index}`), pets, pets.map(() => 'available')];
      for (let run = 0; run < 20; run++) await pool.query({ ...STATEMENTS.createPets, values });
      const started = performance.now();
      for (let run = 0; run < RUNS; run++) await pool.query({ ...STATEMENTS.createPets, values });
      const ms = (performance.now() - started) / RUNS;
      console.log(
        `commit +${commitDelayMicroseconds / 1000} ms, ${size} pets a statement: ${ms.toFixed(2)} ms each, ${Math.round((size / ms) * 1000).toLocaleString('en-US')} pets/s on one connection`,
      );
    }
  } finally {
    await pool.end();
    cluster.destroy();
  }
}
