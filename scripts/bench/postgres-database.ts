// The benchmark's PostgreSQL: a throwaway cluster (scripts/postgres/) with pg_stat_statements, and
// one database per benchmark server, each migrated and seeded with the pets seed-pets.ts gives the
// in-memory store (same names, categories and statuses, ids 1…n). Server settings are PostgreSQL's
// defaults, fsync and synchronous_commit included: a create is on disk before it is served.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/store/postgres/migrate.js';
import { startStreamingReplica, startThrowawayCluster, type Cluster } from 'throwaway-postgres';
import { processCpu } from './process-cpu.js';
import { RARE_STATUS } from './seed-pets.js';

export interface BenchDatabase {
  /**
   * (Re)creates database `name` holding `pets` pets, its sessions with these server settings; its connection string.
   */
  prepare(name: string, pets: number, settings?: Record<string, string | number>): Promise<string>;
  /** Statements executed in database `name` so far, counted by pg_stat_statements. */
  statements(name: string): Promise<number>;
  /** User plus system CPU seconds used so far by the cluster's running processes. */
  cpuSeconds(): number;
  /** A streaming replica of the cluster (pg_basebackup -R), its settings the primary's and `settings`. */
  startReplica(settings?: Record<string, string>): Promise<BenchReplica>;
  close(): Promise<void>;
  /** Stops the cluster at once and removes its files, without ending connections first: for an exit handler. */
  destroy(): void;
}

export interface BenchReplica {
  /** The connection string of its database `name`. */
  urlOf(name: string): string;
  /** User plus system CPU seconds used so far by its processes. */
  cpuSeconds(): number;
  destroy(): void;
}

const STATEMENT_SETTINGS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' };

const postmasterOf = (cluster: Cluster) =>
  Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

export async function startBenchDatabase(): Promise<BenchDatabase> {
  const cluster: Cluster = await startThrowawayCluster(STATEMENT_SETTINGS);
  const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
  try {
    await admin.query('CREATE EXTENSION pg_stat_statements');
  } catch (error) {
    await admin.end();
    cluster.destroy();
    throw error;
  }
  const urlOf = (name: string) => cluster.url.replace(/\/postgres$/, `/${name}`);
  const postmaster = postmasterOf(cluster);
  return {
    async prepare(name, pets, settings = {}) {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name}`);
      for (const [setting, value] of Object.entries(settings))
        await admin.query(`ALTER DATABASE ${name} SET ${setting} = ${Number(value)}`);
      const pool = new pg.Pool({ connectionString: urlOf(name), max: 1 });
      try {
        await migrate(pool);
        await pool.query(
          `INSERT INTO pets (name, category_id, status)
           SELECT 'pet ' || i, i % 1000, CASE WHEN i % 100 = 99 THEN $2 ELSE (ARRAY['available', 'pending', NULL])[i % 3 + 1] END
           FROM generate_series(0, $1::int - 1) AS i ORDER BY i`,
          [pets, RARE_STATUS],
        );
        await pool.query('VACUUM ANALYZE pets');
        // The seeding's dirty pages are written now, not by a checkpoint during a measured load
        // (whose CPU would be charged to the requests of whichever workload was running).
        await pool.query('CHECKPOINT');
      } finally {
        await pool.end();
      }
      return urlOf(name);
    },
    async statements(name) {
      const { rows } = await admin.query<{ calls: string | null }>(
        'SELECT sum(calls) AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)',
        [name],
      );
      return Number(rows[0]?.calls ?? 0);
    },
    cpuSeconds: () => clusterCpuSeconds(postmaster),
    async startReplica(settings = {}) {
      const replica = await startStreamingReplica(cluster, { ...STATEMENT_SETTINGS, ...settings });
      const replicaPostmaster = postmasterOf(replica);
      return {
        urlOf: (name) => replica.url.replace(/\/postgres$/, `/${name}`),
        cpuSeconds: () => clusterCpuSeconds(replicaPostmaster),
        destroy: () => replica.destroy(),
      };
    },
    async close() {
      await admin.end();
      cluster.destroy();
    },
    destroy() {
      cluster.destroy();
    },
  };
}

/**
 * CPU seconds of a cluster: the postmaster, its live children, and those that exited (it reaps
 * them: its cutime and cstime). Without the last, a backend that ended during a measurement (a pool
 * closing an idle connection) took its time with it, and a round could read as negative CPU. A
 * child reaped while the children are read is in neither sum (a CI round read -113 µs a create):
 * the reaped time is read again after them, and the whole read repeated until it did not change (at
 * most ten times: a cluster reaping without pause is then read as it is, rather than never).
 */
function clusterCpuSeconds(postmaster: number): number {
  for (let attempt = 1; ; attempt++) {
    const before = processCpu(postmaster)?.reaped ?? 0;
    let children = 0;
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      const cpu = processCpu(Number(pid));
      if (cpu?.parent === postmaster) children += cpu.seconds;
    }
    const own = processCpu(postmaster);
    const reaped = own?.reaped ?? 0;
    if (reaped === before || attempt === 10) return (own?.seconds ?? 0) + reaped + children;
  }
}
