// Where the PostgreSQL store's reads ran, as Prometheus reads it (src/metrics/read-metrics.ts):
// counts added at each scrape, each replica's lag and whether it is usable.
import { Registry } from 'prom-client';
import t from 'tap';
import { createReadMetrics } from '../../src/metrics/read-metrics.js';
import type { ReplicaView } from '../../src/store/postgres/replicas.js';

t.test('reads by target, skips by reason, and each replica as the instance sees it', async (t) => {
  const registry = new Registry();
  const metrics = createReadMetrics(registry);
  metrics.read('get-pet', 'replica');
  metrics.read('get-pet', 'replica');
  metrics.read('get-pet', 'primary');
  metrics.skipped('behind');
  let views: ReplicaView[] = [
    { name: 'db-1:5432', state: 'following', position: 7, lagMs: 250 },
    { name: 'db-2:5432', state: 'unreachable', position: 0, lagMs: Infinity },
  ];
  metrics.observeReplicas(() => views);
  const first = await registry.metrics();
  t.match(first, 'petstore_db_reads_total{db_operation_name="get-pet",target="replica"} 2');
  t.match(first, 'petstore_db_reads_total{db_operation_name="get-pet",target="primary"} 1');
  t.match(first, 'petstore_db_read_skips_total{reason="behind"} 1');
  t.match(first, 'petstore_db_replica_lag_seconds{replica="db-1:5432"} 0.25');
  t.match(first, 'petstore_db_replica_lag_seconds{replica="db-2:5432"} +Inf');
  t.match(first, 'petstore_db_replica_usable{replica="db-1:5432"} 1');
  t.match(first, 'petstore_db_replica_usable{replica="db-2:5432"} 0');
  metrics.read('get-pet', 'replica');
  views = [{ ...views[0]!, lagMs: 0 }];
  const second = await registry.metrics();
  t.match(second, 'petstore_db_reads_total{db_operation_name="get-pet",target="replica"} 3', 'counts add up');
  t.match(second, 'petstore_db_replica_lag_seconds{replica="db-1:5432"} 0');
});
