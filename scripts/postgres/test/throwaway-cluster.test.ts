// The throwaway clusters the tests, the benchmark and npm run database start (this package), where
// starting or stopping one fails: nothing is left behind.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { destroyClusterAt, startThrowawayCluster, whyNoPostgresBinaries } from '../throwaway-cluster.js';

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
