// The Pet Store's in-process properties: sequences of valid and broken requests against a model of
// the store (the commands of create-commands.ts, read-commands.ts and change-commands.ts), every
// broken request and every bad key, and every operation of openapi.yaml through the contract
// engine with this project's plug-in. Shared by test/helpers/property-runs.ts (fixed seed, few
// cases, inside npm test) and test/model/campaign.ts (any seed, many cases).
import { liveChecks, type LiveSender, type NamedProperty } from 'openapi-contract-engine';
import {
  API_KEY,
  checks,
  contract,
  createPet,
  deletePet,
  every,
  fc,
  getPet,
  listPets,
  operation,
  updatePet,
  type Model,
  type Subject,
  generators,
} from './model.js';
import { type NewPet } from '../../src/types/api.js';
import { BrokenKeyed, CreatePet, KeyedCreate, RetryKeyed, idempotencyHeader } from './create-commands.js';
import { FollowLink, GetPet, ListPets, WalkPages } from './read-commands.js';
import { Broken, DeletePet, tagChoice, Unauthorized, UpdatePet } from './change-commands.js';
import { clockBeforeSunsets } from 'petstore-contract-plugin';
import { petStorePlugin } from 'petstore-contract-plugin';
import { CLIENT_KEYS, SPEC } from './subject.js';

const { expectRefused, expectUnauthorized } = checks;
const { brokenRequest } = generators;

export type { NamedProperty };
export {
  createSubject,
  memoryStoreUnderTest,
  postgresStoreUnderTest,
  type StoreUnderTest,
  type Subject,
} from './subject.js';

const brokenRequests = every.broken;
/** Every operation of openapi.yaml needs a key. */
const withBadKey = every.withBadKey!;
const CLOCK = clockBeforeSunsets(SPEC);

const initialPets = fc
  .tuple(
    fc.nat({ max: 250 }),
    fc.array(
      createPet.map((valid) => valid.body as NewPet),
      { minLength: 1, maxLength: 5 },
    ),
  )
  .map(([count, pattern]) => Array.from({ length: count }, (_, index) => pattern[index % pattern.length]!));

// Refused for their body or Content-Type (a broken Idempotency-Key would replace the key sent).
const brokenCreate = brokenRequest(operation('createPet')).filter((broken) => !broken.rule.startsWith('header '));

const commands = fc.commands(
  [
    createPet.map((valid) => new CreatePet(valid.request, valid.body as Record<string, unknown>)),
    listPets.map((valid) => new ListPets(valid.request, valid.query)),
    fc.nat().map((pick) => new FollowLink(pick)),
    listPets.map((valid) => new WalkPages(valid.request, valid.query)),
    fc.tuple(getPet, fc.nat(), fc.boolean()).map(([valid, pick, any]) => new GetPet(valid.request, pick, any)),
    fc.oneof(...brokenRequests).map((broken) => new Broken(broken)),
    withBadKey.map((request) => new Unauthorized(request)),
    fc
      .tuple(createPet, fc.nat({ max: 1 }), idempotencyHeader)
      .map(
        ([valid, client, header]) =>
          new KeyedCreate({ request: valid.request, body: valid.body as Record<string, unknown> }, client, header),
      ),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, otherForm]) => new RetryKeyed(pick, otherForm)),
    fc
      .tuple(brokenCreate, fc.nat({ max: 1 }), idempotencyHeader)
      .map(([broken, client, header]) => new BrokenKeyed(broken, client, header)),
    fc
      .tuple(updatePet, fc.nat(), fc.boolean(), tagChoice)
      .map(
        ([valid, pick, removed, choice]) =>
          new UpdatePet({ request: valid.request, body: valid.body as Record<string, unknown> }, pick, removed, choice),
      ),
    fc
      .tuple(deletePet, fc.nat(), fc.boolean(), tagChoice)
      .map(([valid, pick, removed, choice]) => new DeletePet(valid.request, pick, removed, choice)),
  ],
  { maxCommands: 50, size: 'large' },
);

/**
 * The checks of npm run contract for a valid request of any operation in openapi.yaml (with the
 * ids its links give, from responses of this run), against `subject`: the operations no model above
 * knows get valid requests too, and each must get a 2xx for some.
 */
function everyOperation(subject: Subject): NamedProperty[] {
  const sender: LiveSender = {
    send: async (request) => ({
      ...(await subject.send(request)),
      url: new URL(request.url, 'http://127.0.0.1').toString(),
    }),
  };
  const live = liveChecks(sender, {
    readOnly: false,
    runId: 'properties',
    maxPages: 10,
    contract,
    apiKey: API_KEY,
    clock: CLOCK,
    plugin: petStorePlugin(),
  });
  return [
    {
      ...live.properties[0]!,
      name: 'a valid request to any operation is answered 2xx (or 404 for an id no link gave) and keeps the contract',
    },
    {
      name: 'every operation answers a valid request with a 2xx',
      property: fc.asyncProperty(fc.integer(), async (seed) => {
        const { withNo2xx } = await live.coverage(seed);
        if (withNo2xx.length > 0) throw new Error(`no 2xx from a valid request for:\n  ${withNo2xx.join('\n  ')}`);
      }),
    },
    {
      // After the two above, which made the run's objects: the other client's key reaches none of them.
      name: "another client's key reads, moves and lists none of the run's owned objects",
      property: fc.asyncProperty(fc.integer(), async (seed) => {
        const outcomes = await live.ownership(CLIENT_KEYS[1], seed);
        const violated = outcomes.filter((outcome) => outcome.result === 'violated');
        if (violated.length > 0) throw violated[0]!.violation!;
        if (!outcomes.some((outcome) => outcome.result === 'checked'))
          throw new Error(`nothing was checked: ${JSON.stringify(outcomes)}`);
      }),
    },
  ];
}

/**
 * The properties, run against `subject`; each case starts with an empty store, except the last three's, which keep
 * what they created.
 */
export function apiProperties(subject: Subject): NamedProperty[] {
  // any: any property's values.
  const fresh = <T extends fc.IAsyncPropertyWithHooks<any>>(property: T) =>
    property.beforeEach(async (previous) => {
      await subject.resetStore();
      return previous();
    });
  return [
    {
      name: 'sequences of valid and broken requests behave like a model of the store',
      // Pets stored up front let lists meet stores larger than their limit without hundreds of requests.
      property: fc.asyncProperty(initialPets, commands, async (initial, sequence) => {
        const pets = await subject.resetStore(initial);
        const model: Model = {
          pets: pets.map((pet) => ({ ...pet })),
          versions: new Map(pets.map((pet) => [String(pet.id), 1])),
          tags: new Map(),
          tagOwners: new Map(),
          nextId: pets.length + 1,
          removed: [],
          links: [],
          keys: new Map(),
        };
        await fc.asyncModelRun(() => ({ model, real: subject }), sequence);
      }),
    },
    {
      name: 'a request that breaks one rule gets the documented 4xx naming what to fix',
      property: fresh(fc.asyncProperty(fc.oneof(...brokenRequests), (broken) => expectRefused(subject, broken))),
    },
    {
      name: 'a request without a valid key gets 401, whatever else is wrong with it',
      property: fresh(fc.asyncProperty(withBadKey, (request) => expectUnauthorized(subject, request))),
    },
    ...everyOperation(subject),
  ];
}
