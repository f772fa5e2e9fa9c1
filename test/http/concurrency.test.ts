// Concurrent creates and lists against the real HTTP server on 127.0.0.1, over several keep-alive
// connections: every create gets its own id, nothing is lost, and every list stays valid.
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';
import { type HttpResponse, nextTarget } from 'openapi-contract-engine';
import { contractViolations } from '../helpers/contract.js';
import type { PetStore } from '../../src/store/pet-store.js';
import type { StatementInstrument } from '../../src/store/postgres/statement-instrument.js';
import { parseJson } from '../../src/validation/strict-json.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';

const CREATES = 600;
const CONNECTIONS = 8;
const STATUSES = ['available', 'pending', 'sold', undefined] as const;

interface Sent {
  name: string;
  categoryId: number;
  status?: string;
}

function send(
  { agent, port }: { agent: Agent; port: number },
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpResponse & { json: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${API_KEY}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            statusCode: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: text,
            json: parseJson(text),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** The app listening on a free port of 127.0.0.1, with the connections it has accepted. */
async function listening(t: Test, store?: PetStore) {
  const { app } = await buildTestApp(t, { logger: false, ...(store === undefined ? {} : { store }) });
  const connections = new Set<unknown>();
  app.server.on('connection', (socket) => connections.add(socket));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: (app.server.address() as AddressInfo).port, connections };
}

/** A keep-alive agent of at most `maxSockets` connections, destroyed on teardown. */
function agentOf(t: Test, maxSockets: number): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets });
  t.teardown(() => agent.destroy());
  return agent;
}

t.test('concurrent creates get distinct ids, are all readable, and lists stay valid meanwhile', async (t) => {
  const { port, connections } = await listening(t);
  const agent = agentOf(t, CONNECTIONS);
  // Lists have a connection of their own, so they run between creates rather than queue behind them.
  const listAgent = agentOf(t, 1);

  const sent: Sent[] = Array.from({ length: CREATES }, (_, index) => {
    const status = STATUSES[index % STATUSES.length];
    return { name: `pet ${index}`, categoryId: index % 7, ...(status === undefined ? {} : { status }) };
  });
  // Each list remembers which creates had been served before it was sent: those pets are stored.
  const lists: {
    response: HttpResponse & { json: any };
    path: string;
    storedBefore: any[];
    createsPending: boolean;
  }[] = [];
  const responded: any[] = [];
  let creating = true;
  const listing = (async () => {
    for (let round = 0; creating || round < 5; round++) {
      const path = [`/v1/pets?limit=100`, `/v1/pets?limit=7&status=pending`, `/v1/pets`][round % 3]!;
      const storedBefore = [...responded];
      const response = await send({ agent: listAgent, port }, 'GET', path);
      lists.push({ path, response, storedBefore, createsPending: responded.length < CREATES });
    }
  })();
  const created = await Promise.all(
    sent.map(async (body) => {
      const response = await send({ agent, port }, 'POST', '/v1/pets', body);
      responded.push(response.json);
      return response;
    }),
  );
  creating = false;
  await listing;

  const problems = created.flatMap((response) => contractViolations(response, 'createPet'));
  t.same(problems, [], 'every create answer keeps the contract');
  t.same(
    created.map((response) => response.statusCode),
    sent.map(() => 201),
    `all ${CREATES} creates answered 201`,
  );
  const ids = created.map((response) => Number(response.json.id));
  t.equal(new Set(ids).size, CREATES, 'the ids are distinct');
  t.same(
    [...ids].sort((a, b) => a - b),
    Array.from({ length: CREATES }, (_, index) => index + 1),
    'the ids are 1…n, none skipped',
  );
  t.same(
    created.map(({ json: { id: _id, ...rest } }) => rest),
    sent,
    'each create answered with the pet it was sent',
  );
  t.ok(
    connections.size > 2 && connections.size <= CONNECTIONS + 1,
    `requests spread over ${connections.size} connections`,
  );

  const byId = new Map(created.map((response) => [Number(response.json.id), response.json]));
  const read = await Promise.all(ids.map((id) => send({ agent, port }, 'GET', `/v1/pets/${id}`)));
  t.same(
    read.flatMap((response) => contractViolations(response, 'getPet')),
    [],
    'every read keeps the contract',
  );
  t.same(
    read.map((response) => response.json),
    ids.map((id) => byId.get(id)),
    'every created pet reads back equal',
  );

  const during = lists.filter((list) => list.createsPending && list.storedBefore.length > 0).length;
  t.ok(during > 5, `${lists.length} lists taken, ${during} of them between creates`);
  const inIdOrder = [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
  let invalid = 0;
  for (const { path, response, storedBefore } of lists) {
    const query = new URL(path, 'http://127.0.0.1').searchParams;
    const limit = Number(query.get('limit') ?? 20);
    const status = query.get('status');
    const pets = response.json as unknown[];
    // The store held pets 1…k when the list was taken: the response is the first of them that match.
    const matching = inIdOrder.filter((pet) => status === null || pet.status === status).slice(0, pets.length);
    const problems = contractViolations(response, 'listPets');
    if (pets.length > limit) problems.push(`${pets.length} pets for limit ${limit}`);
    const mustHave = Math.min(limit, storedBefore.filter((pet) => status === null || pet.status === status).length);
    if (pets.length < mustHave)
      problems.push(`${pets.length} pets, but ${mustHave} matching pets were stored before the list was asked for`);
    if (JSON.stringify(pets) !== JSON.stringify(matching)) problems.push('not the first pets of the final order');
    if (problems.length > 0) {
      invalid += 1;
      t.fail(`${path} answered ${response.body}: ${problems.join('; ')}`);
    }
  }
  t.equal(invalid, 0, 'every list taken during the creates is valid, within its limit, and the first pets in id order');
});

// The walk runs on one instance with the in-memory store, and on two instances sharing one
// PostgreSQL database, where creates run on both and each walk reads from one of them: with a few
// creates at once, and with 64 at once, so that each instance writes them in batches.
interface Deployment {
  ports: number[];
  /** How many create statements the instances sent, when they are counted. */
  createStatements?: () => number;
}
const database = await startTestDatabase(t);
const onPostgres = async (t: Test): Promise<Deployment> => {
  const url = await database!.freshSchema();
  let statements = 0;
  const instrument: StatementInstrument = (statement, run) => {
    if (statement.startsWith('create-pet')) statements++;
    return run();
  };
  const stores = [await database!.openStore(t, url, { instrument }), await database!.openStore(t, url, { instrument })];
  return {
    ports: await Promise.all(stores.map(async (store) => (await listening(t, store)).port)),
    createStatements: () => statements,
  };
};
const noPostgres = database === undefined ? (whyNoPostgres() ?? true) : false;
const deployments: [string, (t: Test) => Promise<Deployment>, number, string | boolean][] = [
  ['one instance, in-memory store', async (t) => ({ ports: [(await listening(t)).port] }), CONNECTIONS, false],
  ['two instances on one PostgreSQL database', onPostgres, CONNECTIONS, noPostgres],
  ['two instances on one PostgreSQL database, 64 creates at once', onPostgres, 64, noPostgres],
];

for (const [deployment, start, connections, skip] of deployments) {
  t.test(
    `${deployment}: a client walking every page while others create sees each pet once, none skipped`,
    { skip },
    async (t) => {
      const { ports, createStatements } = await start(t);
      const portFor = (index: number) => ports[index % ports.length]!;
      const agent = agentOf(t, connections);
      const walkAgent = agentOf(t, 2);
      const body = (index: number) => {
        const status = STATUSES[index % STATUSES.length];
        return { name: `pet ${index}`, categoryId: index, ...(status === undefined ? {} : { status }) };
      };
      const existing = await Promise.all(
        Array.from({ length: 300 }, (_, index) =>
          send({ agent, port: portFor(index) }, 'POST', '/v1/pets', body(index)),
        ),
      );
      const responded: any[] = existing.map((response) => response.json);

      // Each walk records, for its last request, which creates had been served before it was sent.
      const walk = async (port: number, first: string, status?: string, onPage?: (pages: number) => void) => {
        const seen: any[] = [];
        const startedWith = responded.filter((pet) => status === undefined || pet.status === status);
        let respondedBeforeLast: any[] = [];
        let pages = 0;
        const problems: string[] = [];
        const createdByPage: number[] = [];
        for (let path: string | undefined = first; path !== undefined;) {
          // The first pages wait (a second at most) for a create served since the page before, so
          // that the walk meets creates between its pages however fast this machine walks or creates.
          for (
            const until = performance.now() + 1000;
            pages > 0 &&
            pages <= 5 &&
            !createsDone &&
            responded.length === createdByPage.at(-1) &&
            performance.now() < until;
          ) {
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
          respondedBeforeLast = [...responded];
          createdByPage.push(responded.length);
          const response = await send({ agent: walkAgent, port }, 'GET', path);
          problems.push(...contractViolations(response, 'listPets'));
          seen.push(...response.json);
          pages += 1;
          onPage?.(pages);
          path = nextTarget(response.headers['link']);
        }
        return {
          seen,
          startedWith,
          respondedBeforeLast: respondedBeforeLast.filter((pet) => status === undefined || pet.status === status),
          pages,
          problems,
          createdByPage,
        };
      };
      // 64 connections create so fast (in batches) that 300 would be done a few pages into a walk.
      const duringWalk = connections > CONNECTIONS ? 2000 : 300;
      // Sent in slices, each once the walk of all pets has read one more page, so that creates are
      // served between its pages however fast this machine creates: sent all at once, they were
      // once all served within two pages of the walk.
      const SLICES = 8;
      let walkedPages = 0;
      let createsDone = false;
      const creates = (async () => {
        for (let slice = 0; slice < SLICES; slice++) {
          const from = Math.floor((duringWalk * slice) / SLICES);
          const to = Math.floor((duringWalk * (slice + 1)) / SLICES);
          const end = performance.now() + 1000;
          while (slice > 0 && walkedPages < slice && performance.now() < end)
            await new Promise((resolve) => setTimeout(resolve, 2));
          await Promise.all(
            Array.from({ length: to - from }, (_, offset) =>
              send({ agent, port: portFor(from + offset) }, 'POST', '/v1/pets', body(300 + from + offset)).then(
                (response) => {
                  responded.push(response.json);
                },
              ),
            ),
          );
        }
      })().finally(() => (createsDone = true));
      const walks = await Promise.all([
        walk(portFor(0), '/v1/pets?limit=7', undefined, (pages) => (walkedPages = pages)),
        walk(portFor(1), '/v1/pets?limit=3&status=pending', 'pending'),
      ]);
      await creates;

      for (const [
        index,
        { seen, startedWith, respondedBeforeLast, pages, problems, createdByPage },
      ] of walks.entries()) {
        const name = index === 0 ? 'walk of all pets, 7 a page' : 'walk of pending pets, 3 a page';
        t.same(problems, [], `${name}: every page keeps the contract`);
        const ids = seen.map((pet) => Number(pet.id));
        t.ok(
          ids.every((id, position) => position === 0 || id > ids[position - 1]!),
          `${name}: ${ids.length} pets over ${pages} pages, each id once, ascending`,
        );
        const seenIds = new Set(ids);
        t.same(
          startedWith.filter((pet) => !seenIds.has(Number(pet.id))),
          [],
          `${name}: every pet stored when it started was seen`,
        );
        t.same(
          respondedBeforeLast.filter((pet) => !seenIds.has(Number(pet.id))),
          [],
          `${name}: every pet created before its last page was asked for was seen`,
        );
        const byId = new Map(responded.map((pet) => [Number(pet.id), pet]));
        t.same(
          seen.filter((pet) => JSON.stringify(byId.get(Number(pet.id))) !== JSON.stringify(pet)),
          [],
          `${name}: every pet seen is as it was created`,
        );
        const between = createdByPage.filter((count, page) => page > 0 && count > createdByPage[page - 1]!).length;
        t.ok(between > 3, `${name}: creates were answered between ${between} of its pages`);
        t.ok(
          ids.length > startedWith.length,
          `${name}: pets created during the walk appeared on later pages (${ids.length - startedWith.length} of them)`,
        );
      }
      if (connections > CONNECTIONS && createStatements !== undefined) {
        const creates = responded.length;
        t.ok(
          createStatements() < creates,
          `the instances wrote ${creates} creates in ${createStatements()} statements: batches of several`,
        );
      }
    },
  );
}
