// Reads on a streaming replica (issue 67, docs/replicas.md): a primary and a replica of Debian's
// PostgreSQL (pg_basebackup -R), the replica's replay held back 500 ms so that lag is always there,
// three instances reading from it. Through the typed client: no create-then-read is ever stale,
// while a client that does not carry its position reads its own past. Under reads alone, the
// primary serves none of them (its pg_stat_statements and the instances' metrics say so). The feed
// read on the replica, and by a follower moving between an instance on the primary alone and one
// on the replica, loses and repeats nothing. Then the faults: the replica stopped, started again,
// and promoted.
import t, { type Test } from 'tap';
import pg from 'pg';
import { createClient, PetstoreError, responseOf, type PetstoreClient } from 'petstore-client';
import { freePort, startStreamingReplica, startThrowawayCluster, type Cluster } from 'throwaway-postgres';
import { API_KEY } from '../helpers/build-app.js';
import { whyNoPostgres } from '../helpers/postgres.js';
import { keysFileEnv, startReadyServer, type Running } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

const skip = whyNoPostgres() ?? false;
t.setTimeout(240_000);

const STATEMENTS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' };

interface Instance extends Running {
  metricsPort: number;
}

const started: Running[] = [];

async function startInstance(t: Test, primary: string, replica?: string): Promise<Instance> {
  const metricsPort = await freePort();
  const server = await startReadyServer(t, {
    ...keysFileEnv(t, [API_KEY]),
    DATABASE_URL: primary,
    ...(replica === undefined ? {} : { DATABASE_READ_URLS: replica }),
    FAIR_SHARE: 'off',
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    SHUTDOWN_DRAIN_MS: '0',
  });
  started.push(server);
  return { ...server, metricsPort };
}

/** Stops every instance with SIGTERM, as an orchestrator does: each exits 0 (and writes its coverage). */
async function stopInstances(t: Test): Promise<void> {
  // Those a subtest started were killed at its end.
  for (const server of started.splice(0).filter(({ child }) => child.exitCode === null && child.signalCode === null)) {
    server.child.kill('SIGTERM');
    t.equal(await server.exited, 0, 'the instance stops cleanly');
  }
}

/** One typed client whose calls go to each instance in turn. */
function clientOver(instances: readonly Running[], readYourWrites = true): PetstoreClient {
  let next = 0;
  return createClient({
    baseUrl: 'http://petstore.invalid/v1',
    apiKey: API_KEY,
    readYourWrites,
    logger: { warn: () => undefined },
    fetch: (input, init) => {
      const url = new URL(String(input));
      url.host = `127.0.0.1:${instances[next++ % instances.length]!.port}`;
      return fetch(url, init);
    },
  });
}

/** The instance's read statements so far, by `<statement> <target>`. */
async function readsOf(instance: Instance): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const [, name, target, count] of text.matchAll(
    /^petstore_db_reads_total\{db_operation_name="([^"]+)",target="([^"]+)"\} (\d+)$/gm,
  ))
    counts.set(`${name} ${target}`, Number(count));
  return counts;
}

/** The first page of a paginated call. */
async function firstPage<T>(pages: AsyncIterable<{ items: T[] }>): Promise<T[]> {
  for await (const page of pages) return page.items;
  return [];
}

/** Whether every instance sees its replica following and not behind at all. */
async function replicaFresh(instances: readonly Instance[]): Promise<boolean> {
  const texts = await Promise.all(
    instances.map(async ({ metricsPort }) => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()),
  );
  return texts.every(
    (text) =>
      /^petstore_db_replica_lag_seconds\{[^}]*\} 0$/m.test(text) &&
      /^petstore_db_replica_usable\{[^}]*\} 1$/m.test(text),
  );
}

const sumOf = async (instances: readonly Instance[], key: string) =>
  (await Promise.all(instances.map(readsOf))).reduce((sum, counts) => sum + (counts.get(key) ?? 0), 0);

/** Calls of the pet and feed reads on a server since its statistics were reset. */
async function readCallsOn(url: string): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ calls: string }>(
      `SELECT COALESCE(sum(calls), 0) AS calls FROM pg_stat_statements
       WHERE query LIKE '%FROM pets WHERE id = $1%' OR query LIKE '%FROM pets WHERE id > $1%'
         OR query LIKE '%FROM pets WHERE status = $1%'
         OR query LIKE '%FROM pet_events WHERE seq > GREATEST%'`,
    );
    return Number(rows[0]!.calls);
  } finally {
    await client.end();
  }
}

async function sql(url: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

const caughtUp = async (primary: Cluster, replica: Cluster) => {
  const [{ seq: on }] = (await sql(primary.url, 'SELECT COALESCE(max(seq), 0) AS seq FROM pet_events')) as [
    { seq: string },
  ];
  const [{ seq: replayed }] = (await sql(replica.url, 'SELECT COALESCE(max(seq), 0) AS seq FROM pet_events')) as [
    { seq: string },
  ];
  return on === replayed;
};

t.test('reads on a replica 500 ms behind: your own writes, the primary spared, the feed whole', { skip }, async (t) => {
  const primary = await startThrowawayCluster(STATEMENTS);
  t.teardown(() => primary.destroy());
  await sql(primary.url, 'CREATE EXTENSION pg_stat_statements');
  const replica = await startStreamingReplica(primary, { ...STATEMENTS, recovery_min_apply_delay: '500ms' });
  t.teardown(() => replica.destroy());
  const instances = [
    await startInstance(t, primary.url, replica.url),
    await startInstance(t, primary.url, replica.url),
    await startInstance(t, primary.url, replica.url),
  ];

  await t.test('1,000 create-then-read sequences through the typed client: none stale', async (t) => {
    const client = clientOver(instances);
    let stale = 0;
    for (let index = 0; index < 1000; index++) {
      const pet = await client.createPet({ name: `Rex ${index}`, categoryId: 1 });
      const read = await client.getPet(pet.id).catch((error: unknown) => {
        if (error instanceof PetstoreError && error.status === 404) return undefined;
        throw error;
      });
      if (read?.name !== pet.name) stale++;
      if (index % 10 === 0) {
        const changed = await client.updatePet(pet.id, { name: `Rex ${index} II` }, { ifMatch: '*' });
        const again = await client.getPet(pet.id);
        if (again.name !== changed.name) stale++;
      }
    }
    t.equal(stale, 0, 'no 404 for the pet just made, no older version');
    t.ok((await sumOf(instances, 'get-pet primary')) > 0, 'reads the replica had not replayed went to the primary');
  });

  await t.test('the negative control: a client without its position reads its past', async (t) => {
    const client = clientOver(instances, false);
    let stale = 0;
    for (let index = 0; index < 100; index++) {
      const pet = await client.createPet({ name: `Control ${index}`, categoryId: 2 });
      stale += await client.getPet(pet.id).then(
        () => 0,
        (error: unknown) => (error instanceof PetstoreError && error.status === 404 ? 1 : Promise.reject(error)),
      );
    }
    t.ok(stale > 0, `${stale} of 100 reads did not find the pet just made`);
  });

  await t.test('under reads alone, the primary serves none of listPets, getPet and listPetEvents', async (t) => {
    await until('the replica has replayed everything', () => caughtUp(primary, replica), 10_000, 100);
    await until('every instance sees it so', () => replicaFresh(instances), 5_000, 50);
    await sql(primary.url, 'SELECT pg_stat_statements_reset()');
    await sql(replica.url, 'SELECT pg_stat_statements_reset()');
    const before = await sumOf(instances, 'get-pet primary');
    const client = clientOver(instances);
    const [first] = await firstPage(client.listPets({ limit: 5 }).pages());
    for (let round = 0; round < 100; round++) {
      await client.getPet(first!.id);
      await firstPage(client.listPets({ limit: 20, status: 'available' }).pages());
      await firstPage(client.listPetEvents({ limit: 20 }).pages());
    }
    t.equal(await readCallsOn(primary.url), 0, "the primary's pg_stat_statements: no pet or feed read");
    t.ok((await readCallsOn(replica.url)) >= 300, "the replica's: all of them");
    t.equal(await sumOf(instances, 'get-pet primary'), before, "the instances' metrics: no getPet on the primary");
  });

  await t.test('the feed on the replica, and a follower moving between primary and replica', async (t) => {
    const onPrimary = await startInstance(t, primary.url);
    const writers = clientOver(instances);
    // From now on: a list's position (docs/events.md, "The feed").
    const now = await fetch(`http://127.0.0.1:${onPrimary.port}/v1/pets?limit=1`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const start = now.headers.get('pet-events-position')!;
    let after = start;
    const written: bigint[] = [];
    let writing = true;
    const writes = (async () => {
      for (let index = 0; writing; index++) {
        const pet = await writers.createPet({ name: `Feed ${index}`, categoryId: 3 });
        written.push(pet.id);
        if (index % 3 === 0) await writers.updatePet(pet.id, { status: 'sold' }, { ifMatch: '*' });
      }
    })();
    const seen: { id: string; petId: bigint; version: number }[] = [];
    const readFrom = async (server: Running) => {
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/pet-events?after=${after}&limit=7`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      t.equal(response.status, 200);
      const events = (await response.json()) as { id: string; petId: number; version: number }[];
      for (const { id, petId, version } of events) seen.push({ id, petId: BigInt(petId), version });
      after = /after=([^&>]+)/.exec(response.headers.get('link')!)![1]!;
    };
    const replicaFeedReads = await sumOf(instances, 'list-pet-events replica');
    // A follower 1.5 s behind the writes reads what the replica has replayed: from the replica.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let round = 0; round < 60; round++) {
      await readFrom(round % 2 === 0 ? onPrimary : instances[round % 3]!);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    writing = false;
    await writes;
    await until(
      'the follower has read to the end',
      async () => {
        const before = seen.length;
        await readFrom(instances[0]!);
        return seen.length === before && (await caughtUp(primary, replica));
      },
      30_000,
      10,
    );
    await readFrom(onPrimary);
    const ids = seen.map(({ id }) => Number(id.split('-')[1]));
    t.ok(
      ids.every((id, index) => index === 0 || id > ids[index - 1]!),
      'never back, never the same event twice',
    );
    const full = (await (
      await fetch(`http://127.0.0.1:${onPrimary.port}/v1/pet-events?after=${start}&limit=1000`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      })
    ).json()) as { id: string }[];
    t.same(
      seen.map(({ id }) => id),
      full.map(({ id }) => id),
      'exactly the feed as the primary holds it: nothing skipped',
    );
    const versions = new Map<bigint, number>();
    for (const { petId, version } of seen) {
      t.equal(version, (versions.get(petId) ?? 0) + 1, `pet ${petId}: no version gap`);
      versions.set(petId, version);
    }
    t.same(
      written.filter((id) => !versions.has(id)),
      [],
      'every acknowledged create is in it',
    );
    t.ok((await sumOf(instances, 'list-pet-events replica')) > replicaFeedReads, 'pages were read on the replica');
  });

  await t.test('faults: the replica stopped, then started again', async (t) => {
    const client = clientOver(instances, false);
    const [pet] = await firstPage(client.listPets({ limit: 1 }).pages());
    replica.stop('fast');
    const stoppedAt = Date.now();
    let slowest = 0;
    for (let round = 0; round < 60; round++) {
      const started = Date.now();
      t.equal((await client.getPet(pet!.id)).id, pet!.id);
      slowest = Math.max(slowest, Date.now() - started);
    }
    t.ok(slowest < 1000, `no read hung (slowest ${slowest} ms)`);
    const onPrimary = await sumOf(instances, 'get-pet primary');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - stoppedAt))));
    for (let round = 0; round < 30; round++) await client.getPet(pet!.id);
    t.equal(await sumOf(instances, 'get-pet primary'), onPrimary + 30, 'a second on, every read on the primary');

    replica.start();
    const onReplica = await sumOf(instances, 'get-pet replica');
    await until(
      'reads return to the replica',
      async () => {
        await client.getPet(pet!.id);
        return (await sumOf(instances, 'get-pet replica')) > onReplica;
      },
      20_000,
      50,
    );
  });

  await t.test('faults: the replica promoted', async (t) => {
    const client = clientOver(instances);
    const rex = await client.createPet({ name: 'Before the failover', categoryId: 4 });
    const rexTag = responseOf(rex)!.headers.get('etag')!;
    const cursor = /after=([^&>]+)/.exec(
      (
        await fetch(`http://127.0.0.1:${instances[0]!.port}/v1/pet-events?limit=1000`, {
          headers: { authorization: `Bearer ${API_KEY}` },
        })
      ).headers.get('link')!,
    )![1]!;
    await until('the replica has replayed the pet', () => caughtUp(primary, replica), 10_000, 100);
    replica.promote();
    const promoted = await startInstance(t, replica.url);
    const onlyThere = await clientOver([promoted]).createPet({ name: 'Only on the promoted server', categoryId: 4 });

    // The old instances still read from DATABASE_READ_URLS: the promoted server has left their history.
    const old = clientOver(instances, false);
    for (let round = 0; round < 60; round++) {
      const found = await old.getPet(onlyThere.id).then(
        () => true,
        (error: unknown) => (error instanceof PetstoreError && error.status === 404 ? false : Promise.reject(error)),
      );
      t.notOk(found, 'an old instance never shows a pet that exists only on the promoted server');
    }

    // On the promoted server: a new epoch, so the old tag gets 412 and the old cursor 410, once.
    const stale = await fetch(`http://127.0.0.1:${promoted.port}/v1/pets/${rex.id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/merge-patch+json',
        'if-match': rexTag,
      },
      body: JSON.stringify({ name: 'After the failover' }),
    });
    t.equal(stale.status, 412, 'a tag from before the promotion');
    const gone = await fetch(`http://127.0.0.1:${promoted.port}/v1/pet-events?after=${cursor}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    t.equal(gone.status, 410, 'a cursor from before the promotion');
    const retried = await fetch(`http://127.0.0.1:${promoted.port}/v1/pets/${rex.id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/merge-patch+json',
        'if-match': stale.headers.get('etag')!,
      },
      body: JSON.stringify({ name: 'After the failover' }),
    });
    t.equal(retried.status, 200, 'with the tag the 412 gave, the service runs on');
    const followed = await fetch(`http://127.0.0.1:${promoted.port}/v1/pet-events?limit=1000`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    t.equal(followed.status, 200, 'and the feed from its start');
  });

  await t.test('every instance stops cleanly', stopInstances);
});
