// The properties the service must keep for every request generated from openapi.yaml. Shared by
// test/contract/properties.test.ts (fixed seed, few cases, inside npm test) and
// scripts/property-campaign.ts (any seed, many cases).
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { NewPet } from '../types/api.js';
import { contractOf } from './document-contract.js';
import { keptNextPage, nextTarget } from './next-link.js';
import { keyOf } from '../idempotency/idempotency-key.js';
import { inHeader, parametersOf, requestGenerators, type ApiRequest, type BrokenRequest } from './api-requests.js';
import { respelt, schemaArbitraries } from './schema-arbitraries.js';
import { liveChecks, type LiveSender } from './live-checks.js';
import {
  answerChecks,
  ContractViolation,
  describe,
  normalized,
  type Answer,
  type NamedProperty,
} from './answer-checks.js';
import { CLIENT_KEYS, CLOCK, SPEC, type Subject } from './in-process-subject.js';

export type { NamedProperty } from './answer-checks.js';
export {
  createSubject,
  memoryStoreUnderTest,
  postgresStoreUnderTest,
  type StoreUnderTest,
  type Subject,
} from './in-process-subject.js';
const [API_KEY] = CLIENT_KEYS;
const contract = contractOf(SPEC);
const { operation } = contract;
const { resolve } = schemaArbitraries(contract.spec);
const { patternOf, validHeaderValue, validRequest, brokenRequest, requestsOf } = requestGenerators(contract, API_KEY);
const every = requestsOf();
// The in-process properties cover every operation of openapi.yaml: one they cannot make requests for stops them.
if (every.unmade.size > 0) throw new Error(`no requests are generated for ${[...every.unmade.values()].join('; ')}`);
const brokenRequests = every.broken;
/** Every operation of openapi.yaml needs a key. */
const withBadKey = every.withBadKey!;
const { expectContract, expectEqual, expectError, expectRefused, expectUnauthorized } = answerChecks(contract);

// ---- A model of the store, and commands that compare the service with it ----

interface StoredPet {
  id: number | bigint;
  name: string;
  categoryId: unknown;
  status?: unknown;
}

/** A `next` link an answer carried: what the page it names must hold. */
interface NextLink {
  url: string;
  limit: number;
  status: unknown;
  after: number | bigint;
}

/** A create with an Idempotency-Key that created its pet: what a retry must get back. */
interface KeyedCreation {
  body: Record<string, unknown>;
  pet: StoredPet;
  client: number;
  header: string;
}

interface Model {
  /** The pets stored now, in id order. */
  pets: StoredPet[];
  /** Each stored pet's version (its ETag, unquoted), by id as text: 1 when created, one more per change. */
  versions: Map<string, number>;
  /** The id the next create gets (ids of removed pets are never reused). */
  nextId: number;
  /** Ids of removed pets. */
  removed: (number | bigint)[];
  /** Every next link answers have carried so far; following one later must still keep its promise. */
  links: NextLink[];
  /** Recorded Idempotency-Keys, by client and key (the quoted and bare forms are one key). */
  keys: Map<string, KeyedCreation>;
}

const listPets = validRequest(operation('listPets'));
const createPet = validRequest(operation('createPet'));
const getPet = validRequest(operation('getPet'));
const DEFAULT_LIMIT = Number(
  resolve(parametersOf(operation('listPets')).find((parameter) => parameter.name === 'limit')!.schema).default,
);

const updatePet = validRequest(operation('updatePet'));
const deletePet = validRequest(operation('deletePet'));

function added(model: Model, pet: StoredPet) {
  model.pets.push(pet);
  model.versions.set(String(pet.id), 1);
  model.nextId += 1;
}

/** The answer's ETag must be the tag of `version`. */
function expectTag(request: ApiRequest, answer: Answer, version: number) {
  if (answer.headers['etag'] !== `"${version}"`)
    throw new ContractViolation(
      request,
      `${describe(request)}: ETag ${String(answer.headers['etag'])}, expected "${version}" (version ${version})`,
    );
}

class CreatePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly body: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const answer = await subject.send(this.request);
    const expected: StoredPet = { id: model.nextId, ...(this.body as Omit<StoredPet, 'id'>) };
    if (answer.statusCode !== 201) expectContract(this.request, answer, ['expected 201']);
    expectEqual(this.request, answer, expected, 'the created pet is what was sent, with the next id');
    expectTag(this.request, answer, 1);
    added(model, expected);
  }
  toString = () => `createPet ${String(this.request.payload)}`;
}

const IDEMPOTENCY_KEY = inHeader(operation('createPet')).find((parameter) => parameter.name === 'Idempotency-Key')!;
// A few values used again and again, so that retries and reuses are common, and any the schema allows.
const idempotencyHeader = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('"k1"', 'k1', '"k2"', '"k 3"', '8e03978e-40d5-43e8-bc93-6894a57f9324') },
  { weight: 1, arbitrary: validHeaderValue(IDEMPOTENCY_KEY) },
);
const keyedRequest = (request: ApiRequest, client: number, header: string): ApiRequest => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${CLIENT_KEYS[client]}`, 'idempotency-key': header },
});

/**
 * Checks the answer to a keyed create against the model: a new key creates the next pet and is
 * recorded; a recorded key with the same body replays the first answer; with another body, 422.
 */
function expectKeyed(
  model: Model,
  request: ApiRequest,
  answer: Answer,
  client: number,
  header: string,
  body: Record<string, unknown>,
) {
  const scoped = `${client}:${keyOf(header)}`;
  const recorded = model.keys.get(scoped);
  if (recorded === undefined) {
    const pet: StoredPet = { id: model.nextId, ...(body as Omit<StoredPet, 'id'>) };
    if (answer.statusCode !== 201 || answer.headers['idempotent-replayed'] !== undefined)
      expectContract(request, answer, ['expected 201, not a replay: a new key']);
    expectEqual(request, answer, pet, 'a new key: the created pet is what was sent, with the next id');
    added(model, pet);
    model.keys.set(scoped, { body, pet, client, header });
  } else if (isDeepStrictEqual(normalized(body), normalized(recorded.body))) {
    if (answer.statusCode !== 201 || answer.headers['idempotent-replayed'] !== 'true')
      expectContract(request, answer, ['expected a 201 replay (Idempotent-Replayed: true)']);
    expectEqual(request, answer, recorded.pet, `a retry of key ${header}: the first answer's pet`);
    if (answer.headers['location'] !== `/v1/pets/${recorded.pet.id}`)
      throw new ContractViolation(
        request,
        `${describe(request)}: a replay's Location must be the first answer's, /v1/pets/${recorded.pet.id}`,
      );
  } else {
    expectError(request, answer, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', mentions: `pet ${recorded.pet.id}` });
  }
}

class KeyedCreate implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly valid: { request: ApiRequest; body: Record<string, unknown> },
    readonly client: number,
    readonly header: string,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const request = keyedRequest(this.valid.request, this.client, this.header);
    expectKeyed(model, request, await subject.send(request), this.client, this.header, this.valid.body);
  }
  toString = () =>
    `createPet by client ${this.client} with Idempotency-Key ${this.header}: ${String(this.valid.request.payload)}`;
}

/** Resends a recorded keyed create, its body spelt differently: members reversed, other spacing, either key form. */
class RetryKeyed implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly pick: number,
    readonly otherForm: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.keys.size > 0;
  async run(model: Model, subject: Subject) {
    const recorded = [...model.keys.values()][this.pick % model.keys.size]!;
    const key = keyOf(recorded.header);
    // A key may be sent bare when the header's pattern accepts it unquoted.
    const header =
      this.otherForm && patternOf(IDEMPOTENCY_KEY).test(key)
        ? recorded.header.startsWith('"')
          ? key
          : `"${key}"`
        : recorded.header;
    const payload = respelt(recorded.body);
    const request = keyedRequest(
      {
        operationId: 'createPet',
        method: 'POST',
        url: '/v1/pets',
        headers: { 'content-type': 'application/json' },
        payload,
      },
      recorded.client,
      header,
    );
    expectKeyed(model, request, await subject.send(request), recorded.client, header, recorded.body);
  }
  toString = () => `retry recorded key #${this.pick}${this.otherForm ? ', in the other form' : ''}`;
}

/** A keyed create refused for what it sends: it records nothing, so a later create with the key creates. */
class BrokenKeyed implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly broken: BrokenRequest,
    readonly client: number,
    readonly header: string,
  ) {}
  check = () => true;
  async run(_model: Model, subject: Subject) {
    const request = keyedRequest(this.broken.request, this.client, this.header);
    expectError(request, await subject.send(request), this.broken.expect);
  }
  toString = () => `broken createPet with Idempotency-Key ${this.header}: ${this.broken.rule}`;
}

/**
 * Checks a page against the model: the pets of the filter after `after`, at most `limit`, and a next
 * link exactly when more follow, carrying the same limit and status. Returns that link.
 */
function expectPage(
  model: Model,
  request: ApiRequest,
  answer: Answer,
  page: { limit: number; status: unknown; after?: number | bigint },
): NextLink | undefined {
  const { limit, status, after } = page;
  const matching = model.pets.filter(
    (pet) => (status === undefined || pet.status === status) && (after === undefined || BigInt(pet.id) > BigInt(after)),
  );
  if (answer.statusCode !== 200) expectContract(request, answer, ['expected 200']);
  const what = `the first ${limit} pets${status === undefined ? '' : ` with status ${String(status)}`}${after === undefined ? '' : ` after id ${after}`}, in id order`;
  expectEqual(request, answer, matching.slice(0, limit), what);
  const tags = matching
    .slice(0, limit)
    .map((pet) => `"${model.versions.get(String(pet.id))}"`)
    .join(', ');
  if ((answer.headers['pet-etags'] ?? '') !== tags)
    throw new ContractViolation(
      request,
      `${describe(request)}: Pet-ETags ${String(answer.headers['pet-etags'])}, expected ${tags || 'none'}`,
    );
  const link = answer.headers['link'];
  const more = matching.length > limit;
  if (!more) {
    if (link !== undefined)
      throw new ContractViolation(
        request,
        `${describe(request)}: ${what}: nothing more follows, yet the answer links to a next page: ${String(link)}`,
      );
    return undefined;
  }
  if (nextTarget(link) === undefined)
    throw new ContractViolation(
      request,
      `${describe(request)}: ${what}: more pets follow, yet there is no next link (Link: ${String(link)})`,
    );
  const resolved = keptNextPage(link, `http://127.0.0.1${request.url}`, { limit, status });
  if (resolved === undefined) {
    throw new ContractViolation(
      request,
      `${describe(request)}: the next link ${nextTarget(link)} does not keep the path, limit ${limit} and status ${String(status)}`,
    );
  }
  return { url: resolved.pathname + resolved.search, limit, status, after: matching[limit - 1]!.id };
}

class ListPets implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly query: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const answer = await subject.send(this.request);
    const link = expectPage(model, this.request, answer, {
      limit: Number(this.query['limit'] ?? DEFAULT_LIMIT),
      status: this.query['status'],
    });
    if (link !== undefined) model.links.push(link);
  }
  toString = () => `listPets ${this.request.url}`;
}

/** Follows a next link an earlier answer carried, perhaps after other pets were created since. */
class FollowLink implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.links.length > 0;
  async run(model: Model, subject: Subject) {
    const link = model.links[this.pick % model.links.length]!;
    const request = linkRequest(link);
    const next = expectPage(model, request, await subject.send(request), link);
    if (next !== undefined) model.links.push(next);
  }
  toString = () => `follow next link #${this.pick}`;
}

/** Reads a whole filter from its first page through every next link. */
class WalkPages implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly query: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const limit = Number(this.query['limit'] ?? DEFAULT_LIMIT);
    const status = this.query['status'];
    const matching = model.pets.filter((pet) => status === undefined || pet.status === status);
    let link = expectPage(model, this.request, await subject.send(this.request), { limit, status });
    let pages = 1;
    while (link !== undefined) {
      if (++pages > Math.ceil(matching.length / limit))
        throw new ContractViolation(
          this.request,
          `${describe(this.request)}: more than ${pages - 1} pages for ${matching.length} pets, ${limit} a page`,
        );
      const request = linkRequest(link);
      link = expectPage(model, request, await subject.send(request), link);
    }
  }
  toString = () => `walk every page from ${this.request.url}`;
}

function linkRequest(link: NextLink): ApiRequest {
  return { operationId: 'listPets', method: 'GET', url: link.url, headers: { authorization: `Bearer ${API_KEY}` } };
}

class GetPet implements fc.AsyncCommand<Model, Subject> {
  /** `pick` chooses a stored pet when there is one; `request` is used as it is otherwise or when `any`. */
  constructor(
    readonly request: ApiRequest,
    readonly pick: number,
    readonly any: boolean,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    let request = this.request;
    if (!this.any && model.pets.length > 0) {
      const id = model.pets[this.pick % model.pets.length]!.id;
      request = { ...request, url: request.url.replace(/[^/]*$/, String(id)) };
    }
    const answer = await subject.send(request);
    const id = BigInt(decodeURIComponent(/[^/]*$/.exec(request.url)![0]));
    const stored = model.pets.find((pet) => BigInt(pet.id) === id);
    if (stored === undefined)
      expectError(request, answer, { status: 404, code: 'PET_NOT_FOUND', mentions: String(id) });
    else {
      expectEqual(request, answer, stored, 'the stored pet');
      expectTag(request, answer, model.versions.get(String(stored.id))!);
    }
  }
  toString = () => `getPet ${this.any ? this.request.url : `stored pet #${this.pick}`}`;
}

/** How a change names the version it expects: the current tag, a stale one, any ('*'), or none. */
type TagChoice = 'current' | 'stale' | '*' | 'none';
const tagChoice = fc.constantFrom<TagChoice>('current', 'current', 'stale', '*', 'none');

/**
 * The pet a change targets: a stored one when there is one, else (or when `removed`) a removed one, else the generated
 * id.
 */
function target(
  model: Model,
  request: ApiRequest,
  pick: number,
  removed: boolean,
): { request: ApiRequest; id: bigint } {
  const ids =
    removed && model.removed.length > 0 ? model.removed : model.pets.length > 0 ? model.pets.map((pet) => pet.id) : [];
  const chosen = ids.length > 0 ? ids[pick % ids.length]! : undefined;
  const url = chosen === undefined ? request.url : request.url.replace(/\/[^/?]*$/, `/${chosen}`);
  return { request: { ...request, url }, id: BigInt(decodeURIComponent(/[^/]*$/.exec(url)![0])) };
}

/**
 * Sends a change with the If-Match `choice` says; checks a refusal (428, 404, 412) and returns the stored pet it
 * changes, if it may.
 */
async function sendChange(model: Model, subject: Subject, base: ApiRequest, id: bigint, choice: TagChoice) {
  const stored = model.pets.find((pet) => BigInt(pet.id) === id);
  const version = stored === undefined ? undefined : model.versions.get(String(stored.id))!;
  const ifMatch =
    choice === 'none'
      ? undefined
      : choice === '*'
        ? '*'
        : choice === 'stale'
          ? `"${(version ?? 1) + 1}"`
          : `"${version ?? 1}"`;
  const request = { ...base, headers: { ...base.headers, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) } };
  const answer = await subject.send(request);
  if (ifMatch === undefined)
    return (
      expectError(request, answer, { status: 428, code: 'PRECONDITION_REQUIRED', mentions: 'If-Match' }),
      undefined
    );
  if (stored === undefined)
    return (expectError(request, answer, { status: 404, code: 'PET_NOT_FOUND', mentions: String(id) }), undefined);
  if (choice === 'stale') {
    expectError(request, answer, { status: 412, code: 'PRECONDITION_FAILED', mentions: `"${version}"` });
    expectTag(request, answer, version!);
    return undefined;
  }
  return { request, answer, stored, version: version! };
}

/** updatePet: a merge patch of a stored (or removed, or made-up) pet, with a current, stale, '*' or no If-Match. */
class UpdatePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly valid: { request: ApiRequest; body: Record<string, unknown> },
    readonly pick: number,
    readonly removed: boolean,
    readonly choice: TagChoice,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const { request, id } = target(model, this.valid.request, this.pick, this.removed);
    const sent = await sendChange(model, subject, request, id, this.choice);
    if (sent === undefined) return;
    const changed: StoredPet = { ...sent.stored };
    for (const [name, value] of Object.entries(this.valid.body)) {
      if (value === null) delete (changed as unknown as Record<string, unknown>)[name];
      else (changed as unknown as Record<string, unknown>)[name] = value;
    }
    if (sent.answer.statusCode !== 200) expectContract(sent.request, sent.answer, ['expected 200']);
    expectEqual(sent.request, sent.answer, changed, 'the pet with the patch applied');
    const version = isDeepStrictEqual(normalized(changed), normalized(sent.stored)) ? sent.version : sent.version + 1;
    expectTag(sent.request, sent.answer, version);
    model.pets[model.pets.indexOf(sent.stored)] = changed;
    model.versions.set(String(changed.id), version);
  }
  toString = () =>
    `updatePet ${this.removed ? 'a removed pet' : `pet #${this.pick}`} with If-Match ${this.choice}: ${String(this.valid.request.payload)}`;
}

/** deletePet: a stored (or removed, or made-up) pet, with a current, stale, '*' or no If-Match. */
class DeletePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly pick: number,
    readonly removed: boolean,
    readonly choice: TagChoice,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const { request, id } = target(model, this.request, this.pick, this.removed);
    const sent = await sendChange(model, subject, request, id, this.choice);
    if (sent === undefined) return;
    if (sent.answer.statusCode !== 204) expectContract(sent.request, sent.answer, ['expected 204']);
    model.pets.splice(model.pets.indexOf(sent.stored), 1);
    model.versions.delete(String(sent.stored.id));
    model.removed.push(sent.stored.id);
  }
  toString = () => `deletePet ${this.removed ? 'a removed pet' : `pet #${this.pick}`} with If-Match ${this.choice}`;
}

class Broken implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly broken: BrokenRequest) {}
  check = () => true;
  async run(_model: Model, subject: Subject) {
    // The model is left as it is: a refused request must change nothing, which later commands check.
    await expectRefused(subject, this.broken);
  }
  toString = () => `broken: ${this.broken.rule}: ${describe(this.broken.request)}`;
}

class Unauthorized implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly request: ApiRequest) {}
  check = () => true;
  run = (_model: Model, subject: Subject) => expectUnauthorized(subject, this.request);
  toString = () => `unauthorized: ${describe(this.request)}`;
}

// A count and a short pattern of pets repeated to that count: cheap to shrink, unlike 250 separate pets.
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
 * ids its links give, from answers of this run), against `subject`: the operations no model above
 * knows get valid requests too, and each must answer some with a 2xx.
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
  });
  return [
    {
      ...live.properties[0]!,
      name: 'a valid request to any operation is answered 2xx (or 404 for an id no link gave) and keeps the contract',
    },
    {
      name: 'every operation answers a valid request with a 2xx',
      property: fc.asyncProperty(fc.integer(), async (seed) => {
        const { unanswered } = await live.coverage(seed);
        if (unanswered.length > 0) throw new Error(`no 2xx from a valid request for:\n  ${unanswered.join('\n  ')}`);
      }),
    },
  ];
}

/**
 * The properties, run against `subject`; each case starts with an empty store, except the last two's, which keep what
 * they created.
 */
export function apiProperties(subject: Subject): NamedProperty[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any property's values
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
