// What `npm run contract` checks against a running deployment, with the generators and the
// checks of the in-process properties (api-requests.ts, api-properties.ts, helpers/contract.ts).
// A live target is not an empty store: it may hold pets already and others may be writing, so
// nothing here assumes a list starts empty or that ids are dense; only what this run created is
// tracked, and its pets are named "contract-check <run id> …".
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { current, type Contract } from '../helpers/contract.js';
import { keptNextPage } from '../helpers/next-link.js';
import { answerChecks, ContractViolation, describe, normalized, type Answer, type NamedProperty, type Sender } from './answer-checks.js';
import { parametersOf, requestGenerators, type ApiRequest, type ValidRequest } from './api-requests.js';
import { respelt, schemaArbitraries, toJson, type Schema } from './schema-arbitraries.js';

export interface LiveOptions {
  /** No createPet at all (valid, broken or unauthorized): safe against production. */
  readOnly: boolean;
  /** Marks the names of the pets this run creates. */
  runId: string;
  /** Pages read at most per walk when reading created pets back through listPets. */
  maxPages: number;
  /** The document whose clients the checks stand for: openapi.yaml unless told. */
  contract?: Contract;
  /**
   * Checks as a client of a released version sees the service (npm run compat): a request that
   * version refuses may now be accepted, if the answer reads as the version says; and the
   * operations listed here, past the sunset that version announced, may answer 410 (or 404 or
   * 405, once removed from the spec) to anything.
   */
  released?: { retired: ReadonlySet<string> };
}

/** An answer over HTTP, with the URL it came from (next links resolve against it). */
export interface LiveAnswer extends Answer {
  url: string;
}

export interface LiveSender extends Sender {
  send(request: ApiRequest): Promise<LiveAnswer>;
}

interface CreatedPet {
  request: ApiRequest;
  answer: LiveAnswer;
  pet: Record<string, unknown>;
}

/** The name prefix of this run's pets; what follows it is the generated name, cut to fit. */
export const namePrefix = (runId: string) => `contract-check ${runId} `;

export interface LiveChecks {
  properties: NamedProperty[];
  /** Reads every pet this run created back, through getPet and through listPets' pages; how many, and any note. */
  readBack(): Promise<{ pets: number; note?: string }>;
  created(): readonly CreatedPet[];
}

/** A request of an operation past its sunset, answered as a retired operation may be: nothing to check. */
class Retired extends Error {}

export function liveChecks(target: LiveSender, { readOnly, runId, maxPages, contract = current, released }: LiveOptions): LiveChecks {
  const { operation } = contract;
  const { resolve } = schemaArbitraries(contract.spec);
  const { requestsOf, validRequest } = requestGenerators(contract);
  const { expectContract, expectEqual, expectError, expectRefused, expectDescribed, expectUnauthorized } = answerChecks(contract);
  const has = (operationId: string) => contract.operations.some((candidate) => candidate.operationId === operationId);
  const operationIds = ['listPets', 'getPet', ...(readOnly ? [] : ['createPet'])].filter(has);
  const requests = requestsOf(operationIds);
  const limitParameter = resolve(parametersOf(operation('listPets')).find((parameter) => parameter.name === 'limit')!.schema);
  const DEFAULT_LIMIT = Number(limitParameter.default);
  const MAX_LIMIT = Number(limitParameter.maximum);
  const newPet = resolve((operation('createPet').object.requestBody as { content: Record<string, { schema: Schema }> }).content['application/json']!.schema);
  const NAME_LENGTH = Number(resolve(newPet.properties!['name']!).maxLength);

  // A retired operation's answer ends the check of its request, if it is one a retired operation may give.
  const retired = released?.retired ?? new Set<string>();
  const sender: LiveSender = {
    async send(request) {
      const answer = await target.send(request);
      if (retired.has(request.operationId) && [404, 405, 410].includes(answer.statusCode)) {
        const problems = contract.errorViolations(answer.json);
        if (answer.json?.status !== answer.statusCode) problems.push(`Error.status is ${String(answer.json?.status)}`);
        if (answer.statusCode === 410 && answer.json?.code !== 'OPERATION_GONE') problems.push('expected code OPERATION_GONE');
        if (problems.length > 0) throw new ContractViolation(request, `${describe(request)} → ${answer.statusCode} ${answer.body}\n  ${problems.join('\n  ')}`);
        throw new Retired();
      }
      return answer;
    },
  };
  const excused =
    <T extends unknown[]>(check: (...args: T) => Promise<void>) =>
    async (...args: T) => {
      try {
        await check(...args);
      } catch (error) {
        if (!(error instanceof Retired)) throw error;
      }
    };
  const created: CreatedPet[] = [];
  const prefix = namePrefix(runId);

  const marked = (valid: ValidRequest): ValidRequest => {
    const body = { ...(valid.body as Record<string, unknown>) };
    body['name'] = prefix + [...String(body['name'])].slice(0, NAME_LENGTH - [...prefix].length).join('');
    return { ...valid, body, request: { ...valid.request, payload: toJson(body) } };
  };

  const checkValid = async (generated: ValidRequest) => {
    const valid = generated.request.operationId === 'createPet' ? marked(generated) : generated;
    const { request } = valid;
    const answer = (await sender.send(request)) as LiveAnswer;
    switch (request.operationId) {
      case 'createPet': {
        if (answer.statusCode !== 201) expectContract(request, answer, ['expected 201: a valid request must be accepted']);
        expectEqual(request, answer, { id: answer.json?.id, ...(valid.body as object) }, 'the created pet is what was sent, with a new id');
        created.push({ request, answer, pet: answer.json });
        return;
      }
      case 'listPets':
        return void checkPage(request, answer, { limit: Number(valid.query['limit'] ?? DEFAULT_LIMIT), status: valid.query['status'] });
      default: {
        // An id chosen at random may or may not exist on a live store: either answer is fine, if it keeps the contract.
        if (answer.statusCode === 404) return expectError(request, answer, { status: 404, code: 'PET_NOT_FOUND', mentions: String(valid.params['petId']) });
        if (answer.statusCode !== 200) expectContract(request, answer, ['expected 200 or 404: a valid request must be accepted']);
        expectContract(request, answer);
        if (BigInt(answer.json.id) !== BigInt(String(valid.params['petId']))) throw new ContractViolation(request, `${describe(request)}: answered pet ${answer.json.id}`);
      }
    }
  };

  /** A page of a live store: the contract, at most `limit` pets of the filter in ascending id order, and a next link that keeps path, limit and status. */
  const checkPage = (request: ApiRequest, answer: LiveAnswer, { limit, status }: { limit: number; status: unknown }): ApiRequest | undefined => {
    if (answer.statusCode !== 200) expectContract(request, answer, ['expected 200: a valid request must be accepted']);
    expectContract(request, answer);
    const pets = answer.json as { id: number | bigint; status?: unknown }[];
    const problems: string[] = [];
    if (pets.length > limit) problems.push(`${pets.length} pets for limit ${limit}`);
    if (status !== undefined && pets.some((pet) => pet.status !== status)) problems.push(`a pet without status ${String(status)}`);
    if (pets.some((pet, index) => index > 0 && BigInt(pet.id) <= BigInt(pets[index - 1]!.id))) problems.push('ids not in ascending order');
    const link = answer.headers['link'];
    let next: ApiRequest | undefined;
    if (link !== undefined) {
      const resolved = keptNextPage(link, answer.url, { limit, status });
      if (resolved === undefined) {
        problems.push(`the next link ${String(link)} does not keep the path, limit ${limit} and status ${String(status)}`);
      } else {
        next = { ...request, url: resolved.toString() };
      }
      if (pets.length < limit) problems.push(`a next link after a page of ${pets.length} pets, fewer than the limit ${limit}`);
    }
    if (problems.length > 0) throw new ContractViolation(request, `${describe(request)} → ${answer.body}\n  ${problems.join('\n  ')}`);
    return next;
  };

  let keysSent = 0;
  /**
   * A create with a new Idempotency-Key (quoted or bare), then the same request again with its body
   * spelt differently, then the key with another valid body: one pet, the first answer replayed, then 422.
   */
  const checkKeyed = async (generated: ValidRequest, another: ValidRequest, bare: boolean) => {
    const valid = marked(generated);
    const body = valid.body as Record<string, unknown>;
    const key = `contract-check-${runId}-${++keysSent}`;
    const first = { ...valid.request, headers: { ...valid.request.headers, 'idempotency-key': bare ? key : `"${key}"` } };
    const answer = (await sender.send(first)) as LiveAnswer;
    if (answer.statusCode !== 201 || answer.headers['idempotent-replayed'] !== undefined) expectContract(first, answer, ['expected 201, not a replay: a new Idempotency-Key']);
    expectEqual(first, answer, { id: answer.json?.id, ...body }, 'the created pet is what was sent, with a new id');
    created.push({ request: first, answer, pet: answer.json });
    const retry = { ...first, headers: { ...first.headers, 'idempotency-key': bare ? `"${key}"` : key }, payload: respelt(body) };
    const replay = await sender.send(retry);
    if (replay.statusCode !== 201 || replay.headers['idempotent-replayed'] !== 'true') expectContract(retry, replay, ['expected a 201 replay (Idempotent-Replayed: true)']);
    expectEqual(retry, replay, answer.json, 'a retry with the same key and body: the first answer');
    if (replay.headers['location'] !== answer.headers['location']) throw new ContractViolation(retry, `${describe(retry)}: the replay's Location ${String(replay.headers['location'])} is not the first answer's ${String(answer.headers['location'])}`);
    const other = marked(another).body;
    if (isDeepStrictEqual(normalized(other), normalized(body))) return;
    const changed = { ...first, payload: toJson(other) };
    expectError(changed, await sender.send(changed), { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', mentions: `pet ${String(answer.json.id)}` });
  };

  const properties: NamedProperty[] = [
    {
      name: 'a valid request is accepted and its answer keeps the contract',
      property: fc.asyncProperty(fc.oneof(...requests.valid), excused(checkValid)),
    },
    ...(readOnly
      ? []
      : [{
          name: 'a create with an Idempotency-Key is made once: a retry replays it, another body gets 422',
          property: fc.asyncProperty(validRequest(operation('createPet')), validRequest(operation('createPet')), fc.boolean(), excused(checkKeyed)),
        }]),
    {
      name: released === undefined ? 'a request that breaks one rule gets the documented 4xx naming what to fix' : 'a request the version refuses gets an answer its document describes',
      property: fc.asyncProperty(fc.oneof(...requests.broken), excused((broken) => (released === undefined ? expectRefused : expectDescribed)(sender, broken))),
    },
    {
      name: 'a request without a valid key gets 401, whatever else is wrong with it',
      property: fc.asyncProperty(requests.withBadKey, excused((request) => expectUnauthorized(sender, request))),
    },
  ];

  const readBack = async () => {
    for (const { request, answer, pet } of has('getPet') ? created : []) {
      // The pet's address is its Location, resolved against the URL that created it.
      const location = new URL(String(answer.headers['location']), answer.url).toString();
      const get: ApiRequest = { operationId: 'getPet', method: 'GET', url: location, headers: { authorization: request.headers['authorization']! } };
      await excused(async () => expectEqual(get, await sender.send(get), pet, `the pet created by ${describe(request)}, read at its Location`))();
    }
    const statuses = [undefined, ...new Set(created.map(({ pet }) => pet['status']).filter((status) => status !== undefined))];
    let note: string | undefined;
    for (const status of statuses) {
      const wanted = new Map(created.filter(({ pet }) => status === undefined || pet['status'] === status).map(({ pet }) => [String(pet['id']), pet]));
      const seen = new Map<string, number>();
      const first = created[0]!.request;
      let request: ApiRequest | undefined = {
        operationId: 'listPets',
        method: 'GET',
        url: `/v1/pets?limit=${MAX_LIMIT}${status === undefined ? '' : `&status=${encodeURIComponent(String(status))}`}`,
        headers: { authorization: first.headers['authorization']! },
      };
      let pages = 0;
      for (; request !== undefined && pages < maxPages; pages++) {
        const answer = (await sender.send(request)) as LiveAnswer;
        const next = checkPage(request, answer, { limit: MAX_LIMIT, status });
        for (const pet of answer.json as Record<string, unknown>[]) {
          const id = String(pet['id']);
          if (!wanted.has(id)) continue;
          seen.set(id, (seen.get(id) ?? 0) + 1);
          if (JSON.stringify(normalized(pet), bigintText) !== JSON.stringify(normalized(wanted.get(id)), bigintText)) {
            throw new ContractViolation(request, `${describe(request)}: pet ${id} is listed as ${JSON.stringify(pet, bigintText)}, but was created as ${JSON.stringify(wanted.get(id), bigintText)}`);
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
        throw new ContractViolation(first, `walking every page of listPets${status === undefined ? '' : ` with status ${String(status)}`} from its first page (${pages} pages): ` +
          `${missing.length > 0 ? `created pets never listed: ${missing.join(', ')}` : ''}${twice.length > 0 ? ` listed more than once: ${twice.join(', ')}` : ''}`);
      }
    }
    return { pets: created.length, ...(note === undefined ? {} : { note }) };
  };

  return { properties, readBack, created: () => created };
}

const bigintText = (_key: string, value: unknown) => (typeof value === 'bigint' ? String(value) : value);
