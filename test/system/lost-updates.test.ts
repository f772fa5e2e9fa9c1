// No update is lost across instances: many writers on one pet, spread over three server processes
// on one PostgreSQL, each reading the pet and appending its own mark to the name it read, sent with
// If-Match and retried on 412 (the client's changePet). The final name holds every acknowledged
// mark. The negative control: the same writers with If-Match: * (last writer wins) lose some, so the
// test can tell the difference.
import t, { type Test } from 'tap';
import { changePet, createClient } from '../../src/client/index.js';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startReadyServer, type Running } from '../helpers/server-process.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
// Three server processes start and serve a few hundred changes.
t.setTimeout(180_000);

const WRITERS = 12;
// One pet per round, each writer changing it once a round.
const ROUNDS = 6;

// The pool about the writers per instance, so that they meet on the row, not on the pool; info
// logs, since startServer waits for "Server listening".
const instance = (t: Test, url: string): Promise<Running> =>
  startReadyServer(t, {
    API_KEYS: API_KEY,
    DATABASE_URL: url,
    DATABASE_POOL_MAX: '8',
    DATABASE_TIMEOUT_MS: '10000',
    FAIR_SHARE: 'off',
    LOG_LEVEL: 'info',
  });

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
