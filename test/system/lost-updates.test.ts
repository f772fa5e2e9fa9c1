// No update is lost across instances: many writers on one pet, spread over three server processes
// on one PostgreSQL, each reading the pet and appending its own mark to the name it read, sent with
// If-Match and retried on 412 (the client's changePet). The final name holds every acknowledged
// mark. The negative control: the same writers with If-Match: * (last writer wins) lose some, so the
// test can tell the difference. Then races that must be refused exactly: the loser of two writers
// holding one tag gets 412 with the winner's tag, and the losers of concurrent removals get 404.
import t, { type Test } from 'tap';
import { changePet, createClient } from 'petstore-client';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startRacingInstance, type Running } from '../helpers/server-process.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
// Three server processes start and serve a few hundred changes.
t.setTimeout(180_000);

const WRITERS = 12;
// One pet per round, each writer changing it once a round.
const ROUNDS = 6;

const instance = (t: Test, url: string): Promise<Running> => startRacingInstance(t, url, API_KEY);

/** A client per instance; writers take them in turn, so that every pet is changed through all three. */
const clientsOf = (servers: Running[]) =>
  servers.map((server) =>
    createClient({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: API_KEY, logger: { warn: () => undefined } }),
  );

const marksIn = (name: string) => name.split(';').filter((mark) => mark.startsWith('w'));

t.test(
  'many writers on one pet across three instances: with If-Match, 0 lost updates; with If-Match: *, some lost',
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const servers = [await instance(t, url), await instance(t, url), await instance(t, url)];
    const clients = clientsOf(servers);
    // Names hold at most 100 characters: a pet takes one round of 12 marks (up to 4 characters each).
    const pets = await Promise.all(
      Array.from({ length: ROUNDS }, (_, index) => clients[index % 3]!.createPet({ name: 'p;', categoryId: index })),
    );

    const runOn = async (lastWriterWins: boolean) => {
      const lost: string[] = [];
      let acknowledged = 0;
      for (const [round, pet] of pets.entries()) {
        const marks: string[] = [];
        await Promise.all(
          Array.from({ length: WRITERS }, async (_, writer) => {
            const client = clients[(writer + round) % clients.length]!;
            const mark = `w${writer}`;
            if (lastWriterWins) {
              const read = await client.getPet(pet.id);
              await client.updatePet(pet.id, { name: `${read.name}${mark};` }, { ifMatch: '*' });
            } else {
              await changePet(client, pet.id, (read) => ({ name: `${read.name}${mark};` }), { attempts: 1000 });
            }
            marks.push(mark);
          }),
        );
        acknowledged += marks.length;
        const final = marksIn((await clients[0]!.getPet(pet.id)).name);
        lost.push(...marks.filter((mark) => !final.includes(mark)).map((mark) => `pet ${pet.id}: ${mark}`));
      }
      return { acknowledged, lost };
    };

    const safe = await runOn(false);
    t.equal(safe.acknowledged, WRITERS * ROUNDS, `${safe.acknowledged} acknowledged updates with If-Match`);
    t.same(safe.lost, [], '0 lost updates');

    for (const pet of pets) await clients[1]!.updatePet(pet.id, { name: 'p;' }, { ifMatch: '*' });
    const unsafe = await runOn(true);
    t.equal(unsafe.acknowledged, WRITERS * ROUNDS, `${unsafe.acknowledged} acknowledged updates with If-Match: *`);
    t.ok(unsafe.lost.length > 0, `the control: with If-Match: * ${unsafe.lost.length} of them were lost`);
  },
);

const RACES = 30;

t.test(
  "races across three instances are refused exactly: 412 with the winner's tag, 404 after a removal",
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const servers = [await instance(t, url), await instance(t, url), await instance(t, url)];
    /** `line` is the method and the path under /v1: `PATCH /pets/1`. */
    const send = (index: number, line: string, headers: Record<string, string> = {}, body?: unknown) => {
      const [method, path] = line.split(' ') as [string, string];
      return fetch(`http://127.0.0.1:${servers[index % 3]!.port}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${API_KEY}`,
          ...(body === undefined
            ? {}
            : { 'content-type': method === 'POST' ? 'application/json' : 'application/merge-patch+json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    };
    /** A new pet, through the instance the round starts on: its id and its tag. */
    const createPet = async (round: number, name: string) => {
      const created = await send(round, 'POST /pets', {}, { name, categoryId: round });
      return { id: ((await created.json()) as { id: number }).id, tag: created.headers.get('etag')! };
    };
    const stale: string[] = [];
    const notRefused: string[] = [];
    for (let round = 0; round < RACES; round += 1) {
      const { id, tag } = await createPet(round, 'race');
      const responses = await Promise.all(
        [0, 1].map((writer) => send(round + writer, `PATCH /pets/${id}`, { 'if-match': tag }, { name: `w${writer}` })),
      );
      const statuses = responses.map((response) => response.status).sort();
      if (statuses.join() !== '200,412') notRefused.push(`round ${round}: ${statuses.join()}`);
      const winner = responses.find((response) => response.status === 200)?.headers.get('etag');
      const loser = responses.find((response) => response.status === 412)?.headers.get('etag');
      if (loser !== undefined && (loser === tag || loser !== winner))
        stale.push(`round ${round}: sent ${tag}, winner ${winner}, loser 412 ETag ${loser}`);
      await Promise.all(responses.map((response) => response.body?.cancel()));
    }
    t.same(notRefused, [], `of two writers holding one tag, one wins and one gets 412, in ${RACES} races`);
    t.same(stale, [], "every loser's 412 carries the winner's tag, never the one it sent");

    const wrong: string[] = [];
    for (let round = 0; round < RACES; round += 1) {
      const { id, tag } = await createPet(round, 'gone');
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, remover) => send(round + remover, `DELETE /pets/${id}`, { 'if-match': tag })),
      );
      const statuses = responses.map((response) => response.status).sort();
      if (statuses.join() !== '204,404,404,404,404,404') wrong.push(`round ${round}: ${statuses.join()}`);
      await Promise.all(responses.map((response) => response.body?.cancel()));
    }
    t.same(wrong, [], `of six concurrent removals of one pet, one 204 and five 404, in ${RACES} races`);
  },
);
