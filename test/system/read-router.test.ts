// The read router on its own (src/store/postgres/replicas.ts), in process, on a real primary and a
// real streaming replica: why a read does not go to a replica (no look at the primary yet, too far
// behind, promoted since the last look), and how a replica is named. test/system/replica-reads.test.ts
// runs it in the service.
import t from 'tap';
import pg from 'pg';
import { startStreamingReplica, startThrowawayCluster } from 'throwaway-postgres';
import { createPostgresPetStore } from '../../src/store/postgres/postgres-pet-store.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { nameOf, type ReadMetrics, type ReplicaOptions } from '../../src/store/postgres/replicas.js';
import { whyNoPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const skip = whyNoPostgres() ?? false;
t.setTimeout(120_000);

t.test('without DATABASE_READ_URLS there is no replica to see', async (t) => {
  const store = createPostgresPetStore({ connectionString: 'postgres://postgres@127.0.0.1:9/none' });
  t.same(store.replicas(), []);
  await store.close();
});

t.test('a replica is named by host and port, never by its user or password', async (t) => {
  t.equal(nameOf({ connectionString: 'postgres://pets:s3cret@db.internal/petstore' }), 'db.internal:5432');
  t.equal(nameOf({ connectionString: 'postgres://pets:s3cret@10.0.0.7:6432/petstore' }), '10.0.0.7:6432');
});

/** A recorder of where reads went and why not to a replica. */
function recorder() {
  const targets: string[] = [];
  const skips: string[] = [];
  const metrics: ReadMetrics = {
    read: (statement, target) => targets.push(`${statement} ${target}`),
    skipped: (reason) => skips.push(reason),
  };
  return { targets, skips, metrics };
}

t.test('why a read stays on the primary', { skip }, async (t) => {
  const primary = await startThrowawayCluster();
  t.teardown(() => primary.destroy());
  const setUp = createPostgresPetStore({ connectionString: primary.url });
  await migrate(setUp.pool);
  await setUp.readEpoch();
  const pet = await setUp.create({ name: 'Rex', categoryId: 1 });
  await setUp.close();
  const replica = await startStreamingReplica(primary);
  t.teardown(() => replica.destroy());

  const open = async (replicas: Omit<ReplicaOptions, 'metrics'>, primaryUrl = primary.url) => {
    const seen = recorder();
    const store = createPostgresPetStore(
      { connectionString: primaryUrl, connectionTimeoutMillis: 500 },
      { replicas: { ...replicas, metrics: seen.metrics } },
    );
    t.teardown(() => store.close());
    return { store, ...seen };
  };

  await t.test('without a look at the primary, no replica is taken to follow it', async (t) => {
    // A primary that cannot be reached: its epoch and position are never read.
    const { store, skips } = await open(
      { pools: [{ connectionString: replica.url }], maxLagMs: 60_000 },
      'postgres://postgres@127.0.0.1:9/postgres',
    );
    t.same(store.replicas(), [
      { name: nameOf({ connectionString: replica.url }), state: 'unreachable', position: 0, lagMs: Infinity },
    ]);
    await until('the replica is seen', () => store.replicas()[0]!.state !== 'unreachable', 5000, 20);
    t.equal(store.replicas()[0]!.state, 'diverged', "its epoch cannot be the primary's");
    await store.get(pet.id).catch(() => undefined);
    t.same(skips, ['diverged']);
  });

  await t.test('a replica further behind than DATABASE_READ_MAX_LAG_MS is skipped', async (t) => {
    const { store, skips, targets } = await open({
      pools: [{ connectionString: replica.url }],
      maxLagMs: 0,
      pollMs: 20,
    });
    await store.readEpoch();
    await until('the replica is followed', () => store.replicas()[0]!.state === 'following', 5000, 20);
    await until('caught up', () => store.replicas()[0]!.lagMs === 0, 5000, 20);
    t.ok(await store.get(pet.id));
    t.same(targets, ['get-pet replica']);
    // The replica stops replaying: the primary moves on without it.
    const admin = new pg.Client(replica.url);
    await admin.connect();
    await admin.query('SELECT pg_wal_replay_pause()');
    await store.create({ name: 'Rex II', categoryId: 1 });
    await until('behind', () => store.replicas()[0]!.lagMs > 0, 5000, 20);
    await store.get(pet.id);
    t.same(skips, ['lagging'], 'more than 0 ms behind');
    await admin.query('SELECT pg_wal_replay_resume()');
    await admin.end();
  });

  await t.test('a replica that stops answering is skipped at once, and by the looks', async (t) => {
    const { store, skips } = await open({
      pools: [{ connectionString: replica.url }],
      maxLagMs: 60_000,
      pollMs: 600_000,
    });
    await until('the first look', () => store.replicas()[0]!.state === 'following', 5000, 20);
    replica.stop('fast');
    t.teardown(() => replica.start());
    t.equal((await store.get(pet.id))?.pet.name, 'Rex', 'read on the primary');
    t.same(skips, ['unreachable'], 'the failed read');
    t.equal(store.replicas()[0]!.state, 'unreachable');
    const looking = await open({ pools: [{ connectionString: replica.url }], maxLagMs: 60_000, pollMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.equal(looking.store.replicas()[0]!.state, 'unreachable', 'a look that fails');
    await looking.store.get(pet.id);
    t.same(looking.skips, ['unreachable']);
  });

  await t.test('a replica promoted since the last look answers nothing', async (t) => {
    const { store, skips, targets } = await open({
      pools: [{ connectionString: replica.url }],
      maxLagMs: 60_000,
      pollMs: 600_000,
    });
    await until('the first look', () => store.replicas()[0]!.state === 'following', 5000, 20);
    replica.promote();
    const found = await store.get(pet.id, { atLeast: 0 });
    t.equal(found?.pet.name, 'Rex', 'read on the primary');
    t.same(skips, ['diverged']);
    t.same(targets, ['get-pet primary']);
    t.equal(store.replicas()[0]!.state, 'diverged', 'and skipped from then on');
  });
});
