// The Pet Store plug-in of the contract engine: what only this API knows, handed to the engine
// through its hook (src/contract/plugin.ts) by npm run contract, npm run compat and the in-process
// properties. Its checks: a created pet is what was sent with a new id, and reads back equal through
// getPet and every page of listPets; a page holds at most its limit, in ascending id order, with a
// next link that keeps its filter; getPet responds the pet its path names; a create with an
// Idempotency-Key is made once; every pet the run created is in the change feed once; cursors as
// the service issues them; the sunset calendar.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  type ApiRequest,
  basePathOf,
  bigintText,
  type ContractPlugin,
  type ErrorVocabulary,
  type QueryKnowledge,
  ContractViolation,
  describe,
  type LiveResponse,
  nextTarget,
  normalized,
  parametersOf,
  type ReadBack,
  reformattedJson,
  type RunContext,
  schemaArbitraries,
  toJson,
  type ValidRequest,
} from 'openapi-contract-engine';
import { keptNextPage } from './next-page.js';
import { retiredAt } from './calendar.js';
import { CURSOR } from './cursors.js';

/**
 * The Pet Store's query parameters that its document cannot describe: listPets' `cursor` and
 * listPetEvents' `after` come only from a `next` link (the cursor's form is known, and broken as
 * the service refuses it), and listPetEvents' `wait` holds a response, so valid requests send its
 * minimum. One object for every run: the engine keeps a document's request generators per object,
 * and building them costs more than a run's requests.
 */
/** How the Pet Store words the rejections the engine provokes (openapi.yaml's ErrorCode). */
export const PET_STORE_ERRORS: ErrorVocabulary = {
  validation: { code: 'VALIDATION_FAILED' },
  invalidJson: { code: 'INVALID_JSON', says: 'not valid JSON' },
  notUtf8: { code: 'INVALID_JSON', says: 'UTF-8' },
  unsupportedMediaType: { code: 'UNSUPPORTED_MEDIA_TYPE', says: 'Content-Type' },
  bodyRequired: { code: 'BODY_REQUIRED', says: 'body' },
  bodyNotAllowed: { code: 'BODY_NOT_ALLOWED', says: 'takes no body' },
  unauthorized: { code: 'UNAUTHORIZED', says: 'API key' },
  insufficientScope: { code: 'INSUFFICIENT_SCOPE' },
  preconditionRequired: { code: 'PRECONDITION_REQUIRED' },
  preconditionFailed: { code: 'PRECONDITION_FAILED' },
  routeNotFound: { code: 'ROUTE_NOT_FOUND' },
};

export const PET_STORE_QUERY: QueryKnowledge = {
  opaque: { cursor: CURSOR },
  givenByLinks: ['after'],
  atMinimum: ['wait'],
};

interface CreatedPet {
  request: ApiRequest;
  response: LiveResponse;
  pet: Record<string, unknown>;
}

const same = (a: unknown, b: unknown) =>
  JSON.stringify(normalized(a), bigintText) === JSON.stringify(normalized(b), bigintText);

/** A plug-in for one run: it keeps what the run created, to read it back after. */
export function petStorePlugin(): ContractPlugin {
  const created: CreatedPet[] = [];
  const pages = new WeakMap<RunContext, ReturnType<typeof pageChecks>>();
  const pagesOf = (context: RunContext) => {
    let checks = pages.get(context);
    if (checks === undefined) pages.set(context, (checks = pageChecks(context)));
    return checks;
  };
  return {
    name: 'pet-store',
    retired: retiredAt,
    query: PET_STORE_QUERY,
    errors: PET_STORE_ERRORS,

    afterValid(context, valid, response) {
      const { expectEqual, expectError } = context.checks;
      const { request, params, query } = valid;
      switch (request.operationId) {
        case 'createPet':
          expectEqual(
            request,
            response,
            { id: response.json?.id, ...(valid.body as object) },
            'the created pet is what was sent, with a new id',
          );
          created.push({ request, response, pet: response.json });
          return;
        case 'listPets':
          pagesOf(context).checkPage(request, response, {
            limit: Number(query['limit'] ?? pagesOf(context).defaultLimit),
            status: query['status'],
          });
          return;
        case 'getPet':
          if (response.statusCode === 404)
            return expectError(request, response, {
              status: 404,
              code: 'PET_NOT_FOUND',
              mentions: String(params['petId']),
            });
          if (BigInt(response.json.id) !== BigInt(String(params['petId'])))
            throw new ContractViolation(request, `${describe(request)}: answered pet ${response.json.id}`);
      }
    },

    properties: (context) =>
      context.has('createPet')
        ? [
            {
              name: 'a create with an Idempotency-Key is made once: a retry replays it, another body gets 422',
              property: fc.asyncProperty(
                context.generators.validRequest(context.contract.operation('createPet')),
                context.generators.validRequest(context.contract.operation('createPet')),
                fc.boolean(),
                context.ignoringRetiredOrLimited(keyedCheck(context, created)),
              ),
            },
          ]
        : [],

    readBacks: (context) => [readBack(context, created, pagesOf(context)), feedReadBack(context, created)],
  };
}

/**
 * listPets' pages: at most `limit` pets of the filter, ascending ids, a next link that keeps path, limit and status.
 */
function pageChecks(context: RunContext) {
  const { contract } = context;
  const { resolve } = schemaArbitraries(contract.spec);
  const limitSchema = contract.operations.some(({ operationId }) => operationId === 'listPets')
    ? resolve(parametersOf(contract.operation('listPets')).find((parameter) => parameter.name === 'limit')!.schema)
    : undefined;
  const checkPage = (
    request: ApiRequest,
    response: LiveResponse,
    { limit, status }: { limit: number; status: unknown },
  ): ApiRequest | undefined => {
    const { expectContract } = context.checks;
    if (response.statusCode !== 200)
      expectContract(request, response, ['expected 200: a valid request must be accepted']);
    expectContract(request, response);
    const pets = response.json as { id: number | bigint; status?: unknown }[];
    const problems: string[] = [];
    if (pets.length > limit) problems.push(`${pets.length} pets for limit ${limit}`);
    if (status !== undefined && pets.some((pet) => pet.status !== status))
      problems.push(`a pet without status ${String(status)}`);
    if (pets.some((pet, index) => index > 0 && BigInt(pet.id) <= BigInt(pets[index - 1]!.id)))
      problems.push('ids not in ascending order');
    const link = response.headers['link'];
    let next: ApiRequest | undefined;
    if (link !== undefined) {
      const resolved = keptNextPage(link, response.url, { limit, status });
      if (resolved === undefined) {
        problems.push(
          `the next link ${String(link)} does not keep the path, limit ${limit} and status ${String(status)}`,
        );
      } else {
        next = { ...request, url: resolved.toString() };
      }
      if (pets.length < limit)
        problems.push(`a next link after a page of ${pets.length} pets, fewer than the limit ${limit}`);
    }
    if (problems.length > 0)
      throw new ContractViolation(request, `${describe(request)} → ${response.body}\n  ${problems.join('\n  ')}`);
    return next;
  };
  return { checkPage, defaultLimit: Number(limitSchema?.default), maxLimit: Number(limitSchema?.maximum) };
}

/**
 * A create with a new Idempotency-Key (quoted or bare), then the same request again with its body
 * spelt differently, then the key with another valid body: one pet, the first response replayed, then 422.
 */
function keyedCheck(context: RunContext, created: CreatedPet[]) {
  let keysSent = 0;
  const { expectContract, expectEqual, expectError } = context.checks;
  return async (generated: ValidRequest, another: ValidRequest, bare: boolean) => {
    const valid = context.marked(generated);
    const body = valid.body as Record<string, unknown>;
    const key = `contract-check-${context.runId}-${++keysSent}`;
    const first = {
      ...valid.request,
      headers: { ...valid.request.headers, 'idempotency-key': bare ? key : `"${key}"` },
    };
    const response = await context.sendValid('createPet', first);
    if (response.statusCode !== 201 || response.headers['idempotent-replayed'] !== undefined)
      expectContract(first, response, ['expected 201, not a replay: a new Idempotency-Key']);
    expectEqual(first, response, { id: response.json?.id, ...body }, 'the created pet is what was sent, with a new id');
    context.succeeded('createPet');
    created.push({ request: first, response, pet: response.json });
    const retry = {
      ...first,
      headers: { ...first.headers, 'idempotency-key': bare ? `"${key}"` : key },
      payload: reformattedJson(body),
    };
    const replay = await context.sender.send(retry);
    if (replay.statusCode !== 201 || replay.headers['idempotent-replayed'] !== 'true')
      expectContract(retry, replay, ['expected a 201 replay (Idempotent-Replayed: true)']);
    expectEqual(retry, replay, response.json, 'a retry with the same key and body: the first answer');
    if (replay.headers['location'] !== response.headers['location'])
      throw new ContractViolation(
        retry,
        `${describe(retry)}: the replay's Location ${String(replay.headers['location'])} is not the first answer's ${String(response.headers['location'])}`,
      );
    const other = context.marked(another).body;
    if (isDeepStrictEqual(normalized(other), normalized(body))) return;
    const changed = { ...first, payload: toJson(other) };
    expectError(changed, await context.sender.send(changed), {
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
      mentions: `pet ${String(response.json.id)}`,
    });
  };
}

/** Every pet the run created (and did not change since) reads back equal through getPet and listPets' pages. */
function readBack(context: RunContext, created: CreatedPet[], pages: ReturnType<typeof pageChecks>): ReadBack {
  const { sender, maxPages } = context;
  const { expectEqual } = context.checks;
  const inContract = (operationId: string) =>
    context.contract.operations.some((operation) => operation.operationId === operationId);
  const basePath = basePathOf(context.contract.spec);
  return {
    name: 'what a create answered reads back equal, through getPet and through listPets pages',
    async check() {
      if (created.length === 0) return undefined;
      // A pet that a later request changed (by a link, with a 2xx) is not what its create served.
      const kept = created.filter(({ pet }) => !context.touched(String(pet['id'])));
      for (const { request, response, pet } of inContract('getPet') ? kept : []) {
        // The pet's address is its Location, resolved against the URL that created it.
        const location = new URL(String(response.headers['location']), response.url).toString();
        const get: ApiRequest = {
          operationId: 'getPet',
          method: 'GET',
          url: location,
          headers: { authorization: request.headers['authorization']! },
        };
        await context.ignoringRetiredOrLimited(async () =>
          expectEqual(
            get,
            await sender.send(get),
            pet,
            `the pet created by ${describe(request)}, read at its Location`,
          ),
        )();
      }
      const statuses = [undefined, ...new Set(kept.map(({ pet }) => pet['status']).filter((s) => s !== undefined))];
      let note: string | undefined;
      for (const status of statuses) {
        if (kept.length === 0) break;
        const wanted = new Map(
          kept
            .filter(({ pet }) => status === undefined || pet['status'] === status)
            .map(({ pet }) => [String(pet['id']), pet]),
        );
        const seen = new Map<string, number>();
        const first = kept[0]!.request;
        const filter = status === undefined ? '' : `&status=${encodeURIComponent(String(status))}`;
        let request: ApiRequest | undefined = {
          operationId: 'listPets',
          method: 'GET',
          url: `${basePath}/pets?limit=${pages.maxLimit}${filter}`,
          headers: { authorization: first.headers['authorization']! },
        };
        let read = 0;
        for (; request !== undefined && read < maxPages; read++) {
          const response = await sender.send(request);
          const next = pages.checkPage(request, response, { limit: pages.maxLimit, status });
          for (const pet of response.json as Record<string, unknown>[]) {
            const id = String(pet['id']);
            if (!wanted.has(id)) continue;
            seen.set(id, (seen.get(id) ?? 0) + 1);
            if (!same(pet, wanted.get(id))) {
              throw new ContractViolation(
                request,
                `${describe(request)}: pet ${id} is listed as ${JSON.stringify(pet, bigintText)}, but was created as ${JSON.stringify(wanted.get(id), bigintText)}`,
              );
            }
          }
          request = next;
        }
        if (request !== undefined) {
          note = `listPets' pages were read up to ${maxPages} pages a walk (--max-pages); pets beyond were read through getPet only`;
          continue;
        }
        const twice = [...seen].filter(([, count]) => count > 1).map(([id]) => id);
        const missing = [...wanted.keys()].filter((id) => !seen.has(id));
        if (twice.length > 0 || missing.length > 0) {
          const filtered = status === undefined ? '' : ` with status ${String(status)}`;
          throw new ContractViolation(
            first,
            `walking every page of listPets${filtered} from its first page (${read} pages): ` +
              (missing.length > 0 ? `created pets never listed: ${missing.join(', ')}` : '') +
              (twice.length > 0 ? ` listed more than once: ${twice.join(', ')}` : ''),
          );
        }
      }
      return note === undefined ? {} : { note };
    },
  };
}

/**
 * The change feed (listPetEvents), read from where it ended before this run wrote anything: every
 * pet this run created has one pet.created event holding the pet as served, and each of its
 * events' versions run 1, 2, 3… in order.
 */
function feedReadBack(context: RunContext, created: CreatedPet[]): ReadBack {
  const { sender, maxPages, contract } = context;
  const { expectContract } = context.checks;
  const feedOperation =
    context.has('listPetEvents') && !context.readOnly ? contract.operation('listPetEvents') : undefined;
  let feedStart: string | undefined;
  /** Follows the feed's next links from `url` until an empty page (or maxPages); the URL of the next read. */
  const walkFeed = async (url: string, onEvents: (events: Record<string, unknown>[], request: ApiRequest) => void) => {
    const authorization = `Bearer ${context.apiKey}`;
    for (let pages = 0; pages < maxPages; pages++) {
      const request: ApiRequest = { operationId: 'listPetEvents', method: 'GET', url, headers: { authorization } };
      const response = await sender.send(request);
      expectContract(request, response, response.statusCode === 200 ? [] : ['expected 200']);
      const events = response.json as Record<string, unknown>[];
      onEvents(events, request);
      const target = nextTarget(response.headers['link']);
      if (target === undefined)
        throw new ContractViolation(request, `${describe(request)}: the answer has no next link`);
      const next = new URL(target, response.url);
      url = next.pathname + next.search;
      if (events.length === 0) return url;
    }
    return undefined;
  };
  return {
    name: "every create of this run is in the change feed once, as answered, each pet's versions without a gap",
    async prepare() {
      if (feedOperation !== undefined)
        feedStart = await walkFeed(`${basePathOf(contract.spec)}${feedOperation.path}?limit=1000`, () => undefined);
    },
    async check() {
      if (feedOperation === undefined || created.length === 0) return undefined;
      if (feedStart === undefined)
        return { note: `the feed was longer than ${maxPages} pages before the run (--max-pages): not read back` };
      const mine = new Set(created.map(({ pet }) => String(pet['id'])));
      const seen = new Set<string>();
      const byPet = new Map<string, Record<string, unknown>[]>();
      const end = await walkFeed(feedStart, (events, request) => {
        for (const event of events) {
          const id = String(event['id']);
          if (seen.has(id))
            throw new ContractViolation(request, `${describe(request)}: event ${id} is in the feed twice`);
          seen.add(id);
          const petId = String(event['petId']);
          if (mine.has(petId)) byPet.set(petId, [...(byPet.get(petId) ?? []), event]);
        }
      });
      if (end === undefined)
        return { note: `the feed's events of this run were read up to ${maxPages} pages (--max-pages)` };
      for (const { pet, request } of created) {
        const events = byPet.get(String(pet['id'])) ?? [];
        const creations = events.filter((event) => event['type'] === 'pet.created');
        if (creations.length !== 1)
          throw new ContractViolation(
            request,
            `${describe(request)}: pet ${String(pet['id'])} was created, and the feed has ${creations.length} pet.created events for it`,
          );
        if (!same(creations[0]!['pet'], pet) || String(creations[0]!['version']) !== '1') {
          throw new ContractViolation(
            request,
            `${describe(request)}: its pet.created event holds ${JSON.stringify(creations[0], bigintText)}, not the pet created at version 1`,
          );
        }
        const versions = events.map((event) => String(event['version']));
        if (versions.some((version, index) => version !== String(index + 1))) {
          throw new ContractViolation(
            request,
            `${describe(request)}: pet ${String(pet['id'])}'s events carry versions ${versions.join(', ')}, not 1, 2, 3… in feed order`,
          );
        }
      }
      return {};
    },
  };
}
