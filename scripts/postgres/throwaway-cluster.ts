// A throwaway PostgreSQL cluster from Debian's server binaries: initdb and pg_ctl in a temporary
// directory, on a free port of 127.0.0.1, trust authentication, as the postgres user when run as
// root (initdb and postgres refuse root). Used by the tests, the benchmark and `npm run database`.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const DEBIAN_BINARIES = '/usr/lib/postgresql';

export interface Cluster {
  port: number;
  /** Connection string of its `postgres` database, as the `postgres` superuser. */
  url: string;
  /** Its data directory. */
  dataDir: string;
  /** Stops the server (for fault tests); start() brings it back on the same port and data. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server and removes its files. */
  destroy(): void;
}

/** Where the newest installed server binaries are, or undefined when there are none. */
export function postgresBinDir(): string | undefined {
  /* c8 ignore next -- a machine without PostgreSQL; the tests run where it is installed */
  if (!existsSync(DEBIAN_BINARIES)) return undefined;
  const versions = readdirSync(DEBIAN_BINARIES).filter((version) =>
    existsSync(join(DEBIAN_BINARIES, version, 'bin', 'initdb')),
  );
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  /* c8 ignore next -- the folder left behind by a removed server package */
  return newest === undefined ? undefined : join(DEBIAN_BINARIES, newest, 'bin');
}

/** Why no cluster can be started here, or undefined when one can. */
export function whyNoPostgresBinaries(): string | undefined {
  /* c8 ignore next 3 -- as above: only where no server is installed */
  return postgresBinDir() === undefined
    ? `no PostgreSQL server binaries under ${DEBIAN_BINARIES} (apt-get install -y postgresql)`
    : undefined;
}

/** A port of 127.0.0.1 that nothing listens on at the moment of asking. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function runAsOwner(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  /* c8 ignore next -- the tests and CI run as root; a developer's account runs the binaries itself */
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Starts a cluster with these server settings (`-c name=value`); throws when there are no binaries. */
export async function startThrowawayCluster(settings: Record<string, string> = {}): Promise<Cluster> {
  const { bin, dir, data, port } = await newClusterPlace();
  runAsOwner(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  return runCluster({ bin, dir, data, port }, settings);
}

/** A streaming replica: what a primary's read replicas are, and what a failover promotes. */
export interface Replica extends Cluster {
  /** Ends recovery: the replica becomes a primary of its own, on a new timeline (pg_ctl promote). */
  promote(): void;
}

/**
 * A streaming replica of `primary` (pg_basebackup -R: it follows the primary's WAL over a
 * replication connection), with these server settings, e.g. `recovery_min_apply_delay: '500ms'`
 * to keep it behind.
 */
export async function startStreamingReplica(primary: Cluster, settings: Record<string, string> = {}): Promise<Replica> {
  const { bin, dir, data, port } = await newClusterPlace();
  try {
    runAsOwner(join(bin, 'pg_basebackup'), [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
      ...['-D', data, '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast'],
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const replica = runCluster({ bin, dir, data, port }, settings);
  return { ...replica, promote: () => runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-w', 'promote']) };
}

/** A new temporary folder the server's user owns, and a free port, for a cluster's files. */
async function newClusterPlace(): Promise<{ bin: string; dir: string; data: string; port: number }> {
  const bin = postgresBinDir();
  /* c8 ignore next -- as above: only where no server is installed */
  if (bin === undefined) throw new Error(whyNoPostgresBinaries());
  const dir = mkdtempSync(join(tmpdir(), 'petstore-pg-'));
  /* c8 ignore next -- as above: the tests run as root */
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  return { bin, dir, data: join(dir, 'data'), port: await freePort() };
}

/** Starts the server of the data directory `data` on `port`; its folder `dir` is removed if it fails. */
function runCluster(
  { bin, dir, data, port }: { bin: string; dir: string; data: string; port: number },
  settings: Record<string, string>,
): Cluster {
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ];
  const start = () =>
    runAsOwner(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      options.join(' '),
      'start',
    ]);
  try {
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  const cluster: Cluster = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: data,
    start() {
      if (!running) start();
      running = true;
    },
    stop(mode = 'fast') {
      if (running) runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    destroy() {
      cluster.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** Stops a cluster that another process started, by its data directory, and removes its files. */
export function destroyClusterAt(dataDir: string): void {
  const bin = postgresBinDir();
  try {
    /* c8 ignore next -- as above: only where no server is installed */
    if (bin !== undefined) runAsOwner(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  } catch {
    // Not running (any more): only its files are left.
  }
  rmSync(dirname(dataDir), { recursive: true, force: true });
}
