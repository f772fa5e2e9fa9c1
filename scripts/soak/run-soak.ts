// npm run bench -- soak, as a function. Starts the built service (node dist/server.js, as operators run it)
// with a probe that samples it from inside (scripts/soak/probe.mjs), sends a steady mixed load at a
// fixed rate (list, get, keyed and plain creates), and prints a row at each interval: RSS, heap used
// after a full GC, event-loop delay p99, open file descriptors, the database connections of the
// instance, and the pets stored. Then a summary against the first row after warm-up.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { freePort, startThrowawayCluster, type Cluster } from 'throwaway-postgres';
import { mb, summarize, type Sample } from './summary.js';

const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));

const USAGE = `usage: npm run bench -- soak --minutes <n> [--store memory|postgres] [--rate <requests/s>] [--interval <s>] [--check]`;

/** What only the service's process can measure: scripts/soak/probe.mjs answers it. */
type Inside = Pick<Sample, 'rss' | 'heapUsed' | 'external' | 'eventLoopDelayP99Ms' | 'fds'>;

const HEADINGS = [
  's',
  'requests',
  'failed',
  'RSS MB',
  'heap MB (after GC)',
  'external MB',
  'ELD p99 ms',
  'fds',
  'DB conns',
  'pets',
];

/** A sample's row, under HEADINGS. */
function cellsOf(taken: Sample) {
  return [
    taken.seconds,
    taken.requests,
    taken.failed,
    mb(taken.rss),
    mb(taken.heapUsed),
    mb(taken.external),
    taken.eventLoopDelayP99Ms.toFixed(2),
    taken.fds,
    taken.databaseConnections ?? '-',
    taken.pets,
  ];
}

class CannotRun extends Error {}

export async function runSoak(argv: string[], log: (line: string) => void = console.log): Promise<number> {
  try {
    return await soak(argv, log);
  } catch (error) {
    if (!(error instanceof CannotRun)) throw error;
    console.error(`soak: ${error.message}`);
    return 2;
  }
}

async function soak(argv: string[], log: (line: string) => void): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        minutes: { type: 'string', default: '10' },
        store: { type: 'string', default: 'memory' },
        rate: { type: 'string', default: '400' },
        interval: { type: 'string' },
        check: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new CannotRun(`${(error as Error).message}\n${USAGE}`);
  }
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  if (!(minutes > 0) || !(rate > 0)) throw new CannotRun(`--minutes and --rate must be positive numbers\n${USAGE}`);
  if (values.store !== 'memory' && values.store !== 'postgres')
    throw new CannotRun(`--store must be memory or postgres\n${USAGE}`);
  const durationMs = minutes * 60_000;
  const intervalMs = values.interval === undefined ? Math.max(5_000, durationMs / 20) : Number(values.interval) * 1000;
  // The first fifth of the run (at most a minute) warms up: code is optimised, pools and caches fill.
  const warmUpMs = Math.min(60_000, durationMs / 5);

  let cluster: Cluster | undefined;
  let admin: pg.Client | undefined;
  let service: ChildProcess | undefined;
  try {
    const env: Record<string, string> = {};
    if (values.store === 'postgres') {
      cluster = await startThrowawayCluster();
      env['DATABASE_URL'] = cluster.url;
      admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
    }
    const port = await freePort();
    const key = randomBytes(24).toString('base64url');
    service = spawn(process.execPath, ['--expose-gc', '--import', PROBE, join(PROJECT_ROOT, 'dist', 'server.js')], {
      env: {
        PATH: process.env['PATH'] ?? '',
        API_KEYS: `soak:${key}`,
        PORT: String(port),
        METRICS_PORT: 'off',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while ((await statusOf(`${base}/health/ready`).catch(() => 0)) !== 200) {
      if (Date.now() > deadline) throw new CannotRun('the service did not become ready within 30 s');
      await sleep(100);
    }

    const load = startLoad(base, key, rate);
    const probe = service;
    const sample = async (seconds: number): Promise<Sample> => {
      const inside = await new Promise<Inside>((resolve) => {
        probe.once('message', resolve as (message: unknown) => void);
        probe.send('sample');
      });
      const databaseConnections =
        admin === undefined
          ? undefined
          : Number(
              (
                await admin.query(
                  "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
                )
              ).rows[0].n,
            );
      return { seconds, ...load.counts(), ...inside, databaseConnections };
    };

    log(
      `soak: ${values.store} store, ${rate} requests/s for ${minutes} min (list 40%, get 20%, keyed create 30%, create 10%); a row every ${intervalMs / 1000} s; warm-up ${warmUpMs / 1000} s`,
    );
    log(row(HEADINGS));
    const started = Date.now();
    const samples: Sample[] = [];
    for (let next = intervalMs; next <= durationMs; next += intervalMs) {
      await sleep(started + next - Date.now());
      const taken = await sample(Math.round((Date.now() - started) / 1000));
      samples.push(taken);
      log(row(cellsOf(taken)));
    }
    await load.stop();
    return summarize(samples, { warmUpMs, store: values.store, check: values.check }, log);
  } finally {
    if (service !== undefined && service.exitCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGINT');
      await exited;
    }
    await admin?.end();
    cluster?.destroy();
  }
}

/** Requests at `rate` a second, spread over workers on keep-alive connections, until stopped. */
function startLoad(base: string, key: string, rate: number) {
  const auth = { authorization: `Bearer ${key}` };
  let running = true;
  let requests = 0;
  let failed = 0;
  let pets = 0;
  const ids: string[] = [];
  const started = performance.now();
  let slot = 0;
  const statuses = ['available', 'pending', 'sold'];

  const one = async (n: number) => {
    const pick = n % 10;
    let status: number;
    if (pick < 4 || (pick < 6 && ids.length === 0)) {
      const filter = n % 3 === 0 ? `&status=${statuses[n % statuses.length]}` : '';
      status = (await send(`${base}/v1/pets?limit=20${filter}`, { headers: auth })).status;
      if (status !== 200) failed += 1;
    } else if (pick < 6) {
      status = (await send(`${base}/v1/pets/${ids[n % ids.length]}`, { headers: auth })).status;
      if (status !== 200) failed += 1;
    } else {
      const keyed = pick < 9 ? { 'idempotency-key': `"soak-${n}-${randomBytes(4).toString('hex')}"` } : {};
      const body = JSON.stringify({
        name: `soak pet ${n}`,
        categoryId: n % 1000,
        ...(n % 2 === 0 ? { status: statuses[n % statuses.length] } : {}),
      });
      const response = await send(`${base}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...keyed },
        body,
      });
      status = response.status;
      if (status === 201) {
        pets += 1;
        // Ids stay as text: a later get sends them back as they came.
        if (ids.length < 10_000) ids.push(/"id":(\d+)/.exec(response.text)![1]!);
      } else {
        failed += 1;
      }
    }
    requests += 1;
  };

  const worker = async () => {
    while (running) {
      const n = slot++;
      const due = started + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (!running) break;
      await one(n);
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  return {
    counts: () => ({ requests, failed, pets }),
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function send(url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, init);
    return { status: response.status, text: await response.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) =>
    get(url, { agent: false }, (response) => resolve(response.resume().statusCode!)).on('error', reject),
  );
}

const row = (cells: (string | number)[]) =>
  cells.map((cell, index) => String(cell).padStart(index === 4 ? 18 : 9)).join(' ');
