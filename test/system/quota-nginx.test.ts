// A quota through the deployment the project ships: nginx (deploy/nginx/petstore.conf) in front of
// three instances on one PostgreSQL database, a client far faster than its quota of 100 requests a
// second. The instances count one another (src/store/postgres/instances.ts) and each takes a third:
// together they accept the quota within 20%, where a counter per instance would accept three times it.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import t from 'tap';
import { freePort } from 'throwaway-postgres';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { startNginx, statusOf, until, whyNoNginx } from '../helpers/nginx.js';
import { startTestDatabase } from '../helpers/postgres.js';

const KEY = 'metered-key-0123456789abcdefghij';
const QUOTA = 100;

t.setTimeout(180_000);

const noNginx = whyNoNginx();
if (noNginx !== undefined) {
  t.comment(`SKIPPED: ${noNginx}`);
  t.end();
} else {
  t.test(`three instances behind nginx hold a quota of ${QUOTA} requests a second within 20%`, async (t) => {
    const database = await startTestDatabase(t);
    if (database === undefined) return;
    const databaseUrl = await database.freshSchema();
    const dir = t.testdir({
      'keys.yaml': `keys:\n  - client: metered\n    key: ${KEY}\nquotas:\n  clients:\n    metered: ${QUOTA}/1s\n`,
    });
    const ports = [await freePort(), await freePort(), await freePort()];
    for (const port of ports) {
      const log = openSync(join(dir, `instance-${port}.log`), 'a');
      const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'server.js')], {
        env: {
          PATH: process.env['PATH'],
          API_KEYS_FILE: join(dir, 'keys.yaml'),
          DATABASE_URL: databaseUrl,
          PORT: String(port),
          METRICS_PORT: 'off',
          SHUTDOWN_DRAIN_MS: '0',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', log, log],
      });
      closeSync(log);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      t.teardown(async () => {
        child.kill('SIGINT');
        await exited;
      });
      await until(`instance on ${port}`, async () => (await statusOf(`http://127.0.0.1:${port}/health/ready`)) === 200);
    }
    const listen = await freePort();
    await startNginx(t, dir, { listen, upstreams: ports });
    // Each instance has seen the others' heartbeats (one a second).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const load = (seconds: number) =>
      autocannon({
        url: `http://127.0.0.1:${listen}/v1/pets?limit=5`,
        connections: 16,
        duration: seconds,
        headers: { authorization: `Bearer ${KEY}` },
      });
    // The first second drains the buckets the instances start with.
    await load(1);
    const seconds = 6;
    const measured = await load(seconds);
    const rate = measured['2xx'] / seconds;
    t.ok(
      Math.abs(rate - QUOTA) <= QUOTA * 0.2,
      `accepted ${rate.toFixed(1)} requests a second through nginx (quota ${QUOTA})`,
    );
    // How many are refused depends on how fast this machine sends (each rejection is held 100 ms);
    // that every response beyond the quota is the 429 does not.
    const refused = measured.statusCodeStats?.['429']?.count ?? 0;
    t.ok(refused > 0 && refused === measured.non2xx, `the rest was refused 429 (${refused} of ${measured.non2xx})`);
    t.equal(measured.errors, 0);

    // A long poll of the feed (nothing written: it is held for its whole wait) passes through nginx.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const began = performance.now();
    const polled = await fetch(`http://127.0.0.1:${listen}/v1/pet-events?wait=3`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    t.equal(polled.status, 200);
    t.same(await polled.json(), []);
    t.ok(performance.now() - began >= 2_900, 'held for its wait, through nginx');
    // And the longest one the spec allows fits nginx's read timeout, with its database read after it.
    const readTimeout = Number(
      /proxy_read_timeout (\d+)s;/.exec(
        readFileSync(join(PROJECT_ROOT, 'deploy', 'nginx', 'petstore.conf'), 'utf8'),
      )![1],
    );
    t.ok(readTimeout >= 30 + 10, `proxy_read_timeout ${readTimeout} s is above listPetEvents' wait of 30 s`);
  });
}
