// From a list to the feed, as a client hands off (Kubernetes' list, then watch from its
// resourceVersion): it reads every page of listPets from the first, keeps the first page's
// Pet-Events-Position, then follows the feed from there, applying each event's pet in order. Under
// concurrent creates, changes and removals through three instances on one PostgreSQL, it ends with
// exactly what a full read gives. The control: starting the feed from the last page's position
// instead misses changes made to pets on pages already read.
import t from 'tap';
import { createClient, responseOf, type Pet, type PetEvent, type PetstoreClient } from 'petstore-client';
import { API_KEY } from '../helpers/build-app.js';
import { startTestDatabase, whyNoPostgres } from '../helpers/postgres.js';
import { startReadyServer } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';

const database = await startTestDatabase(t);
const skip = database === undefined ? (whyNoPostgres() ?? true) : false;
t.setTimeout(180_000);

const WRITERS = 6;
const PAGE = 5;
const CHANGES_PER_PAGE = 6;

/** Every event after `after`, up to the feed's end now (wait=0: the feed is still once the writers stopped). */
async function eventsAfter(client: PetstoreClient, after: string): Promise<PetEvent[]> {
  const events: PetEvent[] = [];
  for await (const page of client.listPetEvents({ after, limit: 1000 }).pages()) {
    if (page.items.length === 0) break;
    events.push(...page.items);
  }
  return events;
}

/** The state a client holds: the listed pets with the events applied in feed order. */
function applied(listed: Map<string, Pet>, events: readonly PetEvent[]): Map<string, Pet> {
  const state = new Map(listed);
  for (const event of events) {
    if (event.pet === undefined) state.delete(String(event.petId));
    else state.set(String(event.petId), event.pet);
  }
  return state;
}

/** The Pet-Events-Position of a first page with limit=1. */
async function positionNow(client: PetstoreClient): Promise<string> {
  for await (const page of client.listPets({ limit: 1 }).pages())
    return responseOf(page.items)!.headers.get('pet-events-position')!;
  throw new Error('no page');
}

const sorted = (pets: Map<string, Pet>) => [...pets.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));

t.test(
  "a list from its first page, then the feed from that page's position, ends with the store's state",
  { skip },
  async (t) => {
    const url = await database!.freshSchema();
    const env = { API_KEYS: API_KEY, DATABASE_URL: url, FAIR_SHARE: 'off', LOG_LEVEL: 'info' };
    const servers = [await startReadyServer(t, env), await startReadyServer(t, env), await startReadyServer(t, env)];
    const clients = servers.map((server) =>
      createClient({
        baseUrl: `http://127.0.0.1:${server.port}/v1`,
        apiKey: API_KEY,
        logger: { warn: () => undefined },
      }),
    );
    for (let index = 0; index < 40; index++)
      await clients[index % 3]!.createPet({ name: `seed ${index}`, categoryId: index });

    // Writers on every instance: creates, renames and removals of pets on every page, until stopped.
    let writing = true;
    let changes = 0;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      const client = clients[writer % 3]!;
      for (let step = 0; writing; step++) {
        const id = 1 + ((writer * 7 + step * 13) % 40);
        const pick = step % 4;
        // Only a quarter of the seeds are ever removed: were all of them, every later update would
        // be a 404, no change would be counted, and the list would wait for ever between two pages
        // (as it did once, when the writers removed the last seed before the list's end).
        const removable = id % 4 === 0;
        try {
          // Creates stop after a while, so that the list, which reads new pets too, reaches its end.
          if (pick === 0 && step < 40) await client.createPet({ name: `w${writer}-${step}`, categoryId: step });
          else if (removable && (pick === 0 || (pick === 3 && step % 8 === 3)))
            await client.deletePet(id, { ifMatch: '*' });
          else await client.updatePet(id, { name: `w${writer}-${step}` }, { ifMatch: '*' });
          changes++;
        } catch (error) {
          if ((error as { status?: number }).status !== 404) throw error;
        }
      }
    });

    const listed = new Map<string, Pet>();
    let first: string | undefined;
    let last: string | undefined;
    let pages = 0;
    for await (const page of clients[0]!.listPets({ limit: PAGE }).pages()) {
      const position = responseOf(page.items)!.headers.get('pet-events-position')!;
      first ??= position;
      last = position;
      for (const pet of page.items) listed.set(String(pet.id), pet);
      pages++;
      // Pages apart by changes, not by time (a slow machine makes fewer changes in a fixed wait), so
      // that the writers change pets on pages already read.
      const before = changes;
      await until('the writers make changes between pages', () => changes >= before + CHANGES_PER_PAGE, 30_000);
    }
    writing = false;
    await Promise.all(writers);
    t.ok(pages > 8 && changes > 50, `${pages} pages read while ${changes} changes were made`);

    const full = new Map<string, Pet>();
    for await (const pet of clients[2]!.listPets({ limit: 100 })) full.set(String(pet.id), pet);
    const handedOff = applied(listed, await eventsAfter(clients[1]!, first!));
    t.same(
      sorted(handedOff),
      sorted(full),
      "the list, then the feed from the first page's position: the store's state",
    );
    const late = applied(listed, await eventsAfter(clients[1]!, last!));
    t.notSame(
      sorted(late),
      sorted(full),
      "the control: from the last page's position, changes to earlier pages are missed",
    );
  },
);

t.test('"from now on" is a list with limit=1: its position is the end of the feed', { skip }, async (t) => {
  const url = await database!.freshSchema();
  const server = await startReadyServer(t, { API_KEYS: API_KEY, DATABASE_URL: url, LOG_LEVEL: 'info' });
  const client = createClient({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: API_KEY });
  const start = await positionNow(client);
  t.match(start, /^[0-9a-f]{8}-0$/, "before any change: the feed's start");
  await client.createPet({ name: 'Rex', categoryId: 1 });
  const position = await positionNow(client);
  t.same(
    (await eventsAfter(client, start)).map((event) => event.id),
    [position],
    "the position after the create is the create's event",
  );
  await client.updatePet(1, { status: 'sold' }, { ifMatch: '*' });
  t.same(
    (await eventsAfter(client, position)).map((event) => event.type),
    ['pet.updated'],
    'following from it reads only what came after',
  );
});
