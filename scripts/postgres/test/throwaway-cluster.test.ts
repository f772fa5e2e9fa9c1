// The throwaway clusters the tests, the benchmark and npm run database start (this package), where
// starting or stopping one fails: nothing is left behind.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import {
  destroyClusterAt,
  postgresBinDir,
  startStreamingReplica,
  startThrowawayCluster,
  whyNoPostgresBinaries,
} from '../throwaway-cluster.js';

const missing = process.env['REQUIRE_POSTGRES_TEST'] === '1' ? undefined : whyNoPostgresBinaries();
const skip = missing ?? false;

t.test('a server that will not start is reported, and its files are removed', { skip }, async (t) => {
  const error = await startThrowawayCluster({ no_such_setting: 'on' }).then(
    () => undefined,
    (thrown: Error) => thrown,
  );
  t.match(error?.message, /pg_ctl/, 'the failed command');
  const dataDir = /-D (\S*petstore-pg-\S+\/data)/.exec(error?.message ?? '')?.[1];
  t.ok(dataDir, 'names the cluster it tried to start');
  t.notOk(existsSync(dirname(dataDir!)), 'its folder is gone');
});

t.test('destroying a cluster that is not running removes its files all the same', async (t) => {
  const dataDir = join(t.testdir({ cluster: {} }), 'cluster', 'data');
  mkdirSync(dataDir);
  destroyClusterAt(dataDir);
  t.notOk(existsSync(dirname(dataDir)));
});

t.test(
  'a streaming replica follows its primary, kept behind by its apply delay, until promoted',
  { skip },
  async (t) => {
    const primary = await startThrowawayCluster();
    t.teardown(() => primary.destroy());
    const replica = await startStreamingReplica(primary, { recovery_min_apply_delay: '500ms' });
    t.teardown(() => replica.destroy());
    const query = (url: string, sql: string) =>
      execFileSync(join(postgresBinDir()!, 'psql'), ['-At', '-d', url, '-c', sql], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();
    t.equal(query(replica.url, 'SELECT pg_is_in_recovery()'), 't', 'in recovery: a replica');
    query(primary.url, 'CREATE TABLE marks (n int); INSERT INTO marks VALUES (1)');
    const written = Date.now();
    let seen = '';
    while (seen !== '1' && Date.now() - written < 10_000) {
      seen = query(replica.url, "SELECT count(*) FROM pg_tables WHERE tablename = 'marks'");
      if (seen !== '1') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.equal(seen, '1', 'the write reaches the replica');
    t.ok(Date.now() - written >= 450, `no sooner than its apply delay (${Date.now() - written} ms)`);
    t.throws(() => query(replica.url, 'INSERT INTO marks VALUES (2)'), /read-only transaction/, 'it takes no write');
    replica.promote();
    t.equal(query(replica.url, 'SELECT pg_is_in_recovery()'), 'f', 'promoted: a primary of its own');
    query(replica.url, 'INSERT INTO marks VALUES (2)');
    t.equal(
      query(primary.url, 'SELECT count(*) FROM marks'),
      '1',
      "the old primary never sees the promoted server's writes",
    );
  },
);

t.test('a replica of a primary that is not running is reported, and its files are removed', { skip }, async (t) => {
  const primary = await startThrowawayCluster();
  t.teardown(() => primary.destroy());
  primary.stop();
  const error = await startStreamingReplica(primary).then(
    () => undefined,
    (thrown: Error) => thrown,
  );
  t.match(error?.message, /pg_basebackup/, 'the failed command');
  const dataDir = /-D (\S*petstore-pg-\S+\/data)/.exec(error?.message ?? '')?.[1];
  t.ok(dataDir, 'names the folder it tried to fill');
  t.notOk(existsSync(dirname(dataDir!)), 'its folder is gone');
});
