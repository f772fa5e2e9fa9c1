// The Pet Store's in-process properties, part one: the service in one process (subject.ts), a
// model of its store, and what every command shares. The commands are in create-commands.ts,
// read-commands.ts and change-commands.ts; the properties in in-process.ts.
import fc from 'fast-check';
import {
  type ApiResponse,
  responseChecks,
  type ApiRequest,
  contractOf,
  ContractViolation,
  describe,
  parametersOf,
  requestGenerators,
  schemaArbitraries,
} from 'openapi-contract-engine';
import { PET_STORE_ERRORS, PET_STORE_QUERY } from 'petstore-contract-plugin';
import { CLIENT_KEYS, SPEC, type Subject } from './subject.js';

export type { Subject };
export const [API_KEY] = CLIENT_KEYS;
export const contract = contractOf(SPEC);
export const { operation } = contract;
const { resolve } = schemaArbitraries(contract.spec);
export const generators = requestGenerators(contract, API_KEY, PET_STORE_QUERY);
export const every = generators.requestsOf();
// The in-process properties cover every operation of openapi.yaml: one they cannot make requests for stops them.
if (every.unmade.size > 0) throw new Error(`no requests are generated for ${[...every.unmade.values()].join('; ')}`);
export const checks = responseChecks(contract, PET_STORE_ERRORS);

/** The key an Idempotency-Key header names: its quoted and bare forms are one key. */
export const keyOf = (header: string) => (header.startsWith('"') ? header.slice(1, -1) : header);

export { fc };
// ---- A model of the store, and commands that compare the service with it ----

export interface StoredPet {
  id: number | bigint;
  name: string;
  categoryId: unknown;
  status?: unknown;
}

/** A `next` link a response carried: what the page it names must hold. */
export interface NextLink {
  url: string;
  limit: number;
  status: unknown;
  after: number | bigint;
}

/** A create with an Idempotency-Key that created its pet: what a retry must get back. */
export interface KeyedCreation {
  body: Record<string, unknown>;
  pet: StoredPet;
  client: number;
  header: string;
}

export interface Model {
  /** The pets stored now, in id order. */
  pets: StoredPet[];
  /** Each stored pet's version, by id as text: 1 when created, one more per change. */
  versions: Map<string, number>;
  /**
   * The tag responses gave each pet at each version (`id@version`), learned from the first response
   * that carried it: the service's tags are opaque, so the model knows them only as issued.
   */
  tags: Map<string, string>;
  /** Which pet and version each tag was issued for: no tag may name two. */
  tagOwners: Map<string, string>;
  /** The id the next create gets (ids of removed pets are never reused). */
  nextId: number;
  /** Ids of removed pets. */
  removed: (number | bigint)[];
  /** Every next link responses have carried so far; following one later must still keep its promise. */
  links: NextLink[];
  /** Recorded Idempotency-Keys, by client and key (the quoted and bare forms are one key). */
  keys: Map<string, KeyedCreation>;
}

export const listPets = generators.validRequest(operation('listPets'));
export const createPet = generators.validRequest(operation('createPet'));
export const getPet = generators.validRequest(operation('getPet'));
export const DEFAULT_LIMIT = Number(
  resolve(parametersOf(operation('listPets')).find((parameter) => parameter.name === 'limit')!.schema).default,
);

export const updatePet = generators.validRequest(operation('updatePet'));
export const deletePet = generators.validRequest(operation('deletePet'));

export function added(model: Model, pet: StoredPet) {
  model.pets.push(pet);
  model.versions.set(String(pet.id), 1);
  model.nextId += 1;
}

/** The tag the model learned for pet `id` at `version`, if a response has carried it. */
export const tagOf = (model: Model, id: number | bigint, version: number) => model.tags.get(`${id}@${version}`);

/**
 * `tag` must name pet `id` at `version`: the tag an earlier response gave that state, or, for a state
 * no response has tagged yet, a strong tag never issued for any other pet or version.
 */
export function expectTagOf(
  model: Model,
  request: ApiRequest,
  tag: unknown,
  { id, version, where = 'ETag' }: { id: number | bigint; version: number; where?: string },
) {
  const state = `${id}@${version}`;
  const known = model.tags.get(state);
  const fail = (why: string) =>
    new ContractViolation(
      request,
      `${describe(request)}: ${where} ${String(tag)} for pet ${id} at version ${version}: ${why}`,
    );
  if (typeof tag !== 'string' || !/^"[!#-~]+"$/.test(tag)) throw fail('not a strong entity tag');
  if (known !== undefined) {
    if (tag !== known) throw fail(`answers gave this state ${known} before`);
    return;
  }
  const owner = model.tagOwners.get(tag);
  if (owner !== undefined) throw fail(`the same tag was issued for pet ${owner.replace('@', ' at version ')}`);
  model.tags.set(state, tag);
  model.tagOwners.set(tag, state);
}

/** The response's ETag must name pet `id` at `version`. */
export function expectTag(
  model: Model,
  { request, response }: { request: ApiRequest; response: ApiResponse },
  id: number | bigint,
  version: number,
) {
  expectTagOf(model, request, response.headers['etag'], { id, version });
}
