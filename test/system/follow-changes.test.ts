// Every change reaches its followers, through a crash and across instances: three server processes
// on one PostgreSQL whose commits are slowed at random (a deferred trigger sleeps 0-20 ms at each
// commit, after the events took their seq), many callers creating, changing and removing pets, a
// follower long-polling the feed, and a webhook receiver that verifies every delivery and refuses
// them for a while. One instance is SIGKILLed midway. Afterwards: every acknowledged change is in
// the feed once, each pet's versions have no gap, the follower saw the whole feed live, and every
// event was delivered and verified at least once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import {
  changePet,
  createClient,
  followPetEvents,
  PetstoreConnectionError,
  verifyDelivery,
  type PetEvent,
  type PetstoreClient,
} from 'petstore-client';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startReadyServer, type Running } from '../helpers/server-process.js';
import { contractOf } from 'openapi-contract-engine';
import { specCopy } from '../helpers/spec.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(240_000);

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const CALLERS = 9;
const STEPS = 14;

t.test(
  'three instances, slowed commits, a SIGKILL and a failing receiver: no change is lost, none is repeated in the feed',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const contract = contractOf(specCopy());

    // The receiver: verifies each delivery (the client's verifyDelivery and the standardwebhooks
    // package), checks its body against the spec's webhooks, and refuses all of them for a while.
    const delivered = new Map<string, PetEvent>();
    const problems: string[] = [];
    let refusing = false;
    let refused = 0;
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (refusing) {
          refused++;
          response.writeHead(503).end();
          return;
        }
        void verifyDelivery(SECRET, body, request.headers as Record<string, string>).then(
          (event) => {
            new Webhook(SECRET).verify(body, request.headers as Record<string, string>);
            problems.push(...contract.deliveryViolations(body));
            delivered.set(event.id, event);
            response.writeHead(204).end();
          },
          (error: Error) => {
            problems.push(`a delivery did not verify: ${error.message}`);
            response.writeHead(400).end();
          },
        );
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise((resolve) => receiver.close(resolve)));
    const hooks = join(t.testdirName, 'webhooks.yaml');
    t.testdir({});
    writeFileSync(
      hooks,
      `endpoints:\n  - url: http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks\n    secret: ${SECRET}\n`,
    );

    const env = {
      API_KEYS: API_KEY,
      DATABASE_URL: url,
      DATABASE_TIMEOUT_MS: '10000',
      FAIR_SHARE: 'off',
      LOG_LEVEL: 'info',
      WEBHOOKS_FILE: hooks,
      WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    };
    const servers: Running[] = [
      await startReadyServer(t, env),
      await startReadyServer(t, env),
      await startReadyServer(t, env),
    ];
    const clients = servers.map((server) =>
      createClient({
        baseUrl: `http://127.0.0.1:${server.port}/v1`,
        apiKey: API_KEY,
        logger: { warn: () => undefined },
        maxRetries: 0,
      }),
    );

    // Commits slowed at random, after the statements took their seqs and before the commit.
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    t.teardown(() => admin.end());
    await admin.query(`
    CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(random() * 0.02); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT OR UPDATE OR DELETE ON pets DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit();
  `);

    // The follower long-polls one instance; if that one is the one killed, it rides the outage out
    // and resumes, from the last event it saw, on another (its fetch goes where followPort says).
    let followPort = servers[0]!.port;
    const followClient = createClient({
      baseUrl: `http://127.0.0.1:${followPort}/v1`,
      apiKey: API_KEY,
      fetch: (input, init) => fetch(String(input).replace(/:\d+\//, `:${followPort}/`), init),
    });
    const followed: PetEvent[] = [];
    let outages = 0;
    const following = new AbortController();
    const follower = (async () => {
      try {
        for await (const event of followPetEvents(followClient, {
          wait: 5,
          signal: following.signal,
          onRetry: () => outages++,
        }))
          followed.push(event);
      } catch (error) {
        if (!following.signal.aborted) throw error;
      }
    })();

    // What each caller was told: created (version 1), changed (its version), removed.
    const acknowledged: string[] = [];
    let killed = false;
    let acknowledgedAfterKill = 0;
    const up = (index: number): PetstoreClient => clients[killed && index % 3 === 2 ? index % 2 : index % 3]!;
    const callers = Array.from({ length: CALLERS }, async (_, caller) => {
      const mine: bigint[] = [];
      for (let step = 0; step < STEPS; step++) {
        // Paced, so that the writes go on before, during and after the kill.
        await new Promise((resolve) => setTimeout(resolve, 150));
        const client = up(caller + step);
        const before = acknowledged.length;
        try {
          if (mine.length < 2 || step % 4 === 0) {
            const pet = await client.createPet({ name: `c${caller} s${step}`, categoryId: caller });
            mine.push(pet.id);
            acknowledged.push(`${pet.id}:1`);
          } else if (step % 5 === 3) {
            const id = mine.shift()!;
            await client.deletePet(id, { ifMatch: '*' });
            acknowledged.push(`${id}:removed`);
          } else {
            const id = mine[step % mine.length]!;
            const changed = await changePet(client, id, (pet) => ({ name: `${pet.name.slice(0, 80)}+` }), {
              attempts: 50,
            });
            if (changed.id === id) acknowledged.push(`${id}:changed`);
          }
          if (killed) acknowledgedAfterKill += acknowledged.length - before;
        } catch (error) {
          // A call in flight to the instance that was killed: not acknowledged, so not counted.
          if (!(error instanceof PetstoreConnectionError)) throw error;
        }
      }
    });
    // Midway: the receiver refuses every delivery for 2.5 s, and meanwhile the instance delivering the
    // webhooks is killed. Another instance takes its lease over once it lapses (2 × timeout + 5 s).
    await new Promise((resolve) => setTimeout(resolve, 500));
    refusing = true;
    setTimeout(() => void (refusing = false), 2500);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const acknowledgedBeforeKill = acknowledged.length;
    const delivering = servers.findIndex((server) =>
      server.output().includes('this instance delivers to the endpoint now'),
    );
    t.not(delivering, -1, 'one instance delivers the webhooks');
    [servers[2], servers[delivering]] = [servers[delivering]!, servers[2]!];
    [clients[2], clients[delivering]] = [clients[delivering]!, clients[2]!];
    servers[2]!.child.kill('SIGKILL');
    killed = true;
    await servers[2]!.exited;
    followPort = servers[0]!.port;
    await Promise.all(callers);

    // The whole feed, as it stands now that every caller is done.
    const feed: PetEvent[] = [];
    for await (const page of clients[1]!.listPetEvents({ limit: 1000 }).pages()) {
      feed.push(...page.items);
      if (page.items.length < 1000) break;
    }
    const until = async (what: string, done: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!done()) {
        if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until('the follower caught up', () => followed.length >= feed.length, 30_000);
    following.abort();
    await follower;
    await until('every event delivered', () => feed.every((event) => delivered.has(event.id)), 60_000);
    // The deliverer records each acceptance once the receiver's response is back: a moment after it.
    const last = BigInt(feed.at(-1)!.id.split('-')[1]!);
    let position = 0n;
    for (let tries = 0; tries < 50 && position !== last; tries++) {
      position = BigInt(
        (await admin.query<{ position: string }>('SELECT position FROM webhook_endpoints')).rows[0]!.position,
      );
      if (position !== last) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(position, last, 'the shared ledger stands at the last event');

    t.ok(
      acknowledgedBeforeKill > 0 && acknowledgedAfterKill > 0,
      `changes acknowledged before the kill (${acknowledgedBeforeKill}) and after it (${acknowledgedAfterKill})`,
    );
    // Logs reach the output within a second of being written.
    await until(
      'another instance says it delivers',
      () =>
        servers.slice(0, 2).some((server) => server.output().includes('this instance delivers to the endpoint now')),
      5000,
    );
    t.pass('another instance took the deliveries over');
    t.same(problems, [], "every delivery verified and matched the spec's webhooks");
    t.ok(refused > 0, `the receiver refused ${refused} deliveries, retried later`);
    t.equal(new Set(feed.map(({ id }) => id)).size, feed.length, `${feed.length} events, none twice`);

    // Every acknowledged change once: creations and removals by pet, changes by count per pet.
    const created = new Set(feed.filter(({ type }) => type === 'pet.created').map(({ petId }) => String(petId)));
    const removed = feed.filter(({ type }) => type === 'pet.deleted').map(({ petId }) => String(petId));
    t.equal(new Set(removed).size, removed.length, 'a pet removed once');
    const changes = new Map<string, number>();
    for (const { type, petId } of feed)
      if (type === 'pet.updated') changes.set(String(petId), (changes.get(String(petId)) ?? 0) + 1);
    const missing: string[] = [];
    const acknowledgedChanges = new Map<string, number>();
    for (const entry of acknowledged) {
      const [id, what] = entry.split(':') as [string, string];
      if (what === '1' && !created.has(id)) missing.push(entry);
      if (what === 'removed' && !removed.includes(id)) missing.push(entry);
      if (what === 'changed') acknowledgedChanges.set(id, (acknowledgedChanges.get(id) ?? 0) + 1);
    }
    for (const [id, count] of acknowledgedChanges)
      if ((changes.get(id) ?? 0) < count)
        missing.push(`${id}: ${count} changes acknowledged, ${changes.get(id) ?? 0} in the feed`);
    t.same(missing, [], `every one of ${acknowledged.length} acknowledged changes is in the feed`);

    // Each pet: versions 1, 2, 3… in feed order, a removal last.
    const versions = new Map<string, bigint>();
    const gaps: string[] = [];
    for (const { petId, version, type } of feed) {
      const last = versions.get(String(petId)) ?? 0n;
      if (version !== last + 1n) gaps.push(`pet ${petId}: ${type} at version ${version} after ${last}`);
      if (last === -1n) gaps.push(`pet ${petId}: an event after its removal`);
      versions.set(String(petId), type === 'pet.deleted' ? -1n : version);
    }
    t.same(gaps, [], 'no pet has a gap or a repeat in its versions');
    t.same(
      followed.map(({ id }) => id),
      feed.map(({ id }) => id),
      `the follower saw the whole feed, live, in order (${outages} outages ridden out)`,
    );
  },
);
