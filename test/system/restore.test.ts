// A database restored from a dump into a fresh cluster is another store: every entity tag issued
// before gets 412, every feed cursor from before gets 410, and event ids are not issued twice. The
// dump is taken with pg_dump, the store moves on, and the dump is restored with psql into a second
// cluster whose store then moves on too: the case where a tag or an event id could name two states.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { postgresBinDir, startThrowawayCluster, inSchema } from 'throwaway-postgres';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { keysFileEnv, startReadyServer, type Running } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(120_000);

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/** A webhook receiver that takes every delivery: each one's webhook-id and the name of its pet. */
async function receiver() {
  const received: { id: string; name: string | undefined }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { pet?: { name: string } };
      received.push({ id: String(request.headers['webhook-id']), name: body.pet?.name });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const file = join(mkdtempSync(join(tmpdir(), 'petstore-hooks-')), 'webhooks.yaml');
  const { port } = server.address() as AddressInfo;
  writeFileSync(file, `endpoints:\n  - id: restore\n    url: http://127.0.0.1:${port}/hooks\n    secret: ${SECRET}\n`);
  return { file, received };
}

// What deliveries between processes may take: a lease lapsing among them (7 s, below).
const WAIT_MS = 20_000;

let webhooksFile = '';
const instance = (url: string) =>
  startReadyServer(t, {
    ...keysFileEnv(t, [API_KEY]),
    DATABASE_URL: url,
    FAIR_SHARE: 'off',
    LOG_LEVEL: 'info',
    WEBHOOKS_FILE: webhooksFile,
    // The dump holds the lease of the instance delivering then; the restored one takes over once it
    // lapses (2 × this + 5 s): 7 s here rather than 35.
    WEBHOOK_TIMEOUT_SECONDS: '1',
    // An endpoint of the API on loopback (its tags are the store's too); it refuses every delivery.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
  });

/** A request to a server, with the key; `line` is the method and the path under /v1: `PATCH /pets/1`. */
const send = (server: Running, line: string, headers: Record<string, string> = {}, body?: unknown) => {
  const [method, path] = line.split(' ') as [string, string];
  return fetch(`http://127.0.0.1:${server.port}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${API_KEY}`,
      ...(body === undefined
        ? {}
        : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
};

/** The `after` of the feed's next link once every event so far is read. */
const feedEnd = async (server: Running, after?: string) => {
  const page = await send(server, `GET /pet-events?limit=100${after === undefined ? '' : `&after=${after}`}`);
  t.equal(page.status, 200);
  await page.body?.cancel();
  return /after=([^&>]+)/.exec(page.headers.get('link')!)![1]!;
};

t.test(
  'a dump restored into a fresh cluster: 412 for old tags, 410 for old cursors, new event ids',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const schema = /search_path=(\S+)/.exec(new URL(url).searchParams.get('options')!)![1]!;
    const hooks = await receiver();
    webhooksFile = hooks.file;
    const before = await instance(url);
    // Deliveries take the endpoint on at once, before any change: from the start of the feed.
    await until(
      'the endpoint is taken on',
      async () => {
        const listed = (await (await send(before, 'GET /webhook-endpoints')).json()) as { after: string }[];
        return /-0$/.test(listed[0]!.after);
      },
      WAIT_MS,
      50,
    );
    const created = await fetch(`http://127.0.0.1:${before.port}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    t.equal(created.status, 201);
    const { id } = (await created.json()) as { id: number };
    const dumpedTag = created.headers.get('etag')!;
    const endpoint = await send(before, 'POST /webhook-endpoints', {}, { url: 'http://127.0.0.1:9/restore' });
    t.equal(endpoint.status, 201);
    const endpointPath = `/webhook-endpoints/${((await endpoint.json()) as { id: string }).id}`;
    const dumpedEndpointTag = endpoint.headers.get('etag')!;
    const dumpedCursor = await feedEnd(before);
    // The dump holds the ledger with the create acknowledged.
    await until(
      'the create delivered and recorded',
      async () => {
        const listed = (await (await send(before, 'GET /webhook-endpoints')).json()) as { after: string }[];
        return listed[0]!.after === dumpedCursor;
      },
      WAIT_MS,
      50,
    );

    const dir = mkdtempSync(join(tmpdir(), 'petstore-dump-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const dump = join(dir, 'dump.sql');
    const plain = new URL(url);
    plain.search = '';
    execFileSync(join(postgresBinDir()!, 'pg_dump'), ['--schema', schema, '--no-owner', '-f', dump, plain.toString()]);

    // The store moves on after the dump: a tag and a cursor the restored store never issued.
    const moved = await send(before, `PATCH /pets/${id}`, { 'if-match': dumpedTag }, { name: 'Rex II' });
    t.equal(moved.status, 200);
    const laterTag = moved.headers.get('etag')!;
    const movedEndpoint = await send(
      before,
      `PATCH ${endpointPath}`,
      { 'if-match': dumpedEndpointTag },
      { description: 'moved' },
    );
    t.equal(movedEndpoint.status, 200);
    const laterEndpointTag = movedEndpoint.headers.get('etag')!;
    const laterCursor = await feedEnd(before, dumpedCursor);
    const oldIds = ((await (await send(before, 'GET /pet-events?limit=100')).json()) as { id: string }[]).map(
      (event) => event.id,
    );
    await until(
      'the change after the dump delivered',
      () => hooks.received.some(({ name }) => name === 'Rex II'),
      WAIT_MS,
      50,
    );
    before.child.kill('SIGKILL');
    await before.exited;

    const fresh = await startThrowawayCluster();
    t.teardown(() => fresh.destroy());
    execFileSync(join(postgresBinDir()!, 'psql'), ['-q', '-v', 'ON_ERROR_STOP=1', '-f', dump, fresh.url], {
      stdio: 'ignore',
    });
    const after = await instance(inSchema(fresh.url, schema));

    const restoredTag = (await send(after, `GET /pets/${id}`)).headers.get('etag');
    t.not(restoredTag, dumpedTag, 'the restored pet has a tag of its own');
    const old = await send(after, `PATCH /pets/${id}`, { 'if-match': dumpedTag }, { name: 'stale' });
    t.equal(old.status, 412, 'a tag issued before the dump gets 412');
    t.equal(old.headers.get('etag'), restoredTag, 'naming the restored tag');
    const changed = await send(after, `PATCH /pets/${id}`, { 'if-match': '*' }, { name: 'Rex III' });
    t.equal(changed.status, 200, 'the restored store moves on to a version 2 of its own');
    const lost = await send(after, `PATCH /pets/${id}`, { 'if-match': laterTag }, { name: 'lost update' });
    t.equal(lost.status, 412, "a tag issued after the dump does not match the restored store's same version");
    t.equal(
      ((await (await send(after, `GET /pets/${id}`)).json()) as { name: string }).name,
      'Rex III',
      'nothing overwritten',
    );
    // The same of an endpoint of the API: its tags name the store's epoch as a pet's do.
    const staleEndpoint = await send(
      after,
      `PATCH ${endpointPath}`,
      { 'if-match': dumpedEndpointTag },
      { description: 'stale' },
    );
    t.equal(staleEndpoint.status, 412, "an endpoint's tag issued before the dump gets 412");
    t.equal(staleEndpoint.headers.get('etag'), (await send(after, `GET ${endpointPath}`)).headers.get('etag'));
    const changedEndpoint = await send(
      after,
      `PATCH ${endpointPath}`,
      { 'if-match': '*' },
      { description: 'restored' },
    );
    t.equal(changedEndpoint.status, 200);
    const lostEndpoint = await send(
      after,
      `PATCH ${endpointPath}`,
      { 'if-match': laterEndpointTag },
      { description: 'lost' },
    );
    t.equal(
      lostEndpoint.status,
      412,
      "an endpoint's tag issued after the dump does not match the same version restored",
    );
    t.match(
      await (await send(after, `GET ${endpointPath}`)).json(),
      { description: 'restored' },
      'nothing overwritten',
    );

    for (const [cursor, what] of [
      [dumpedCursor, 'a cursor from before the dump'],
      [laterCursor, 'a cursor from after the dump'],
    ] as const) {
      const page = await send(after, `GET /pet-events?after=${cursor}`);
      t.equal(page.status, 410, `${what} gets 410`);
      t.equal(((await page.json()) as { code: string }).code, 'CURSOR_EXPIRED');
    }
    const events = (await (await send(after, 'GET /pet-events?limit=100')).json()) as { id: string; type: string }[];
    t.same(
      events.map((event) => event.type),
      ['pet.created', 'pet.updated'],
      'a follower from the start reads every event of the restored store, none skipped',
    );
    t.same(
      events.filter((event) => oldIds.includes(event.id)),
      [],
      'no event id of the store before is issued again',
    );
    // The restored ledger stands after the create: the restored store's own change is delivered,
    // under an id no receiver has seen, so one that drops repeats by webhook-id keeps it.
    await until(
      "the restored store's change delivered",
      () => hooks.received.some(({ name }) => name === 'Rex III'),
      WAIT_MS,
      50,
    );
    t.same(
      hooks.received.map(({ name }) => name),
      ['Rex', 'Rex II', 'Rex III'],
      'every event delivered once: the create, the change before the restore, the change after it',
    );
    t.equal(hooks.received[2]!.id, events[1]!.id, "the delivery's webhook-id is the restored feed's event id");
    t.notOk(oldIds.includes(hooks.received[2]!.id), 'never an id the old store delivered');
  },
);
