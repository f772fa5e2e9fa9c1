// What `npm run contract` checks against a running deployment, with the generators and the
// checks of the in-process properties (api-requests.ts, in-process.ts, document-contract.ts).
// A live target is not an empty store: it may hold pets already and others may be writing, so
// nothing here assumes a list starts empty or that ids are dense; only what this run created is
// tracked, and its pets are named "contract-check <run id> …".
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { keptNextPage } from './next-link.js';
import {
  namePrefix,
  type CreatedPet,
  type LiveAnswer,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';
import { answerChecks, ContractViolation, describe, normalized, type NamedProperty } from './answer-checks.js';
import { bodySchemaOf, parametersOf, requestGenerators, type ApiRequest, type ValidRequest } from './api-requests.js';
import { respelt, schemaArbitraries, toJson, type Schema } from './schema-arbitraries.js';
import { linkedHeadersOf, linkedValues, linksOf, type SpecLink } from './spec-links.js';
import { basePathOf, pathParametersOf, resolveRef } from '../openapi/openapi-spec.js';
import { refusalOf } from '../routes/deprecation-headers.js';
import { lifecycleOf } from '../openapi/lifecycle.js';

export {
  namePrefix,
  type LiveAnswer,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';

/** A request of an operation past its sunset, answered as a retired operation may be: nothing to check. */
class Retired extends Error {}
/** A request still refused 429 after the target waited and sent it again: the deployment's limit, not a violation. */
class RateLimited extends Error {}

const SAFE_METHODS = new Set(['get', 'head', 'options']);
/** Valid requests tried per operation, after the generated cases, before one without a 2xx fails the run. */
const COVERAGE_TRIES = 20;

/** A generated valid request, and how to choose ids from links for it when the run has some. */
interface ValidCase {
  generated: ValidRequest;
  /** Which of the linked values to use. */
  pick: number;
  /** Whether to use them (when there are any); otherwise the generated ids, which may name nothing. */
  useLink: boolean;
}

export function liveChecks(
  target: LiveSender,
  { readOnly, runId, maxPages, contract, apiKey, released, clock = Date.now }: LiveOptions,
): LiveChecks {
  const { operation } = contract;
  const { resolve } = schemaArbitraries(contract.spec);
  const { requestsOf, validRequest, relinked } = requestGenerators(contract, apiKey);
  const { expectContract, expectEqual, expectError, expectRefused, expectDescribed, expectUnauthorized } =
    answerChecks(contract);
  const has = (operationId: string) => contract.operations.some((candidate) => candidate.operationId === operationId);
  const unheld = released?.unheld ?? new Set<string>();
  const chosen = contract.operations.filter(
    (candidate) => !unheld.has(candidate.operationId) && (!readOnly || SAFE_METHODS.has(candidate.method)),
  );
  const requests = requestsOf(chosen.map((candidate) => candidate.operationId));
  // The version's own links, and those it lacks of the current spec's (the same link in both is followed once).
  const linkKey = ({ from, status, to, parameters }: SpecLink) => JSON.stringify([from, status, to, parameters]);
  const links = [
    ...new Map(
      [...linksOf(contract.spec, contract.name), ...(released?.links ?? [])].map((link) => [linkKey(link), link]),
    ).values(),
  ].filter((link) => has(link.from) && has(link.to));

  const counts = new Map<string, OperationCount>(
    chosen.map((candidate) => [
      candidate.operationId,
      {
        operationId: candidate.operationId,
        method: candidate.method.toUpperCase(),
        path: candidate.path,
        sent: 0,
        valid: 0,
        succeeded: 0,
        statuses: new Map(),
        ...(requests.unmade.has(candidate.operationId) ? { unmade: requests.unmade.get(candidate.operationId)! } : {}),
      },
    ]),
  );
  /** Values each link has given, by the operation they are for; each as JSON text too, to keep them once. */
  const linked = new Map<string, Map<string, Record<string, unknown>>>();
  /** Ids a 2xx answer to a request of an unsafe method reached through a link: such a pet may have changed. */
  const touched = new Set<string>();

  // A retired operation's answer ends the check of its request, if it is one a retired operation may
  // give: a released version's, past the sunset it announced, may be gone from the spec (404, 405);
  // the contract's own, past its sunset or browned out, answers as its spec documents (410).
  // The contract's own calendar is the one the service keeps (refusalOf, behind its retirement check).
  const refusals = new Map(
    released === undefined
      ? contract.operations.map((candidate) => [
          candidate.operationId,
          refusalOf(lifecycleOf(candidate, contract.operations, contract.name), basePathOf(contract.spec)),
        ])
      : [],
  );
  const isRetired = (operationId: string) =>
    released === undefined ? refusals.get(operationId)?.(clock()) !== undefined : released.retired.has(operationId);
  const retiredStatuses = released === undefined ? [410] : [404, 405, 410];
  const sender: LiveSender = {
    async send(request) {
      const answer = await target.send(request);
      const count = counts.get(request.operationId);
      if (count !== undefined) count.sent += 1;
      if (retiredStatuses.includes(answer.statusCode) && isRetired(request.operationId)) {
        const problems = contract.errorViolations(answer.json);
        if (answer.json?.status !== answer.statusCode) problems.push(`Error.status is ${String(answer.json?.status)}`);
        if (answer.statusCode === 410 && answer.json?.code !== 'OPERATION_GONE')
          problems.push('expected code OPERATION_GONE');
        if (problems.length > 0)
          throw new ContractViolation(
            request,
            `${describe(request)} → ${answer.statusCode} ${answer.body}\n  ${problems.join('\n  ')}`,
          );
        throw new Retired();
      }
      if (answer.statusCode === 429) {
        // A limit never fails a run: the answer must be the documented 429, and the check of this request ends there.
        const problems = contract.violations(answer, request.operationId);
        if (problems.length > 0)
          throw new ContractViolation(request, `${describe(request)} → 429 ${answer.body}\n  ${problems.join('\n  ')}`);
        throw new RateLimited();
      }
      for (const link of links) {
        if (link.from !== request.operationId || link.status !== String(answer.statusCode)) continue;
        // A write follows links only from what this run wrote, never from a read (a made-up id may
        // name another client's pet): a run changes and removes only what it created.
        if (!SAFE_METHODS.has(operation(link.to).method) && SAFE_METHODS.has(request.method.toLowerCase())) continue;
        const values = linkedValues(link, answer.json, answer.headers);
        if (values === undefined) continue;
        if (!linked.has(link.to)) linked.set(link.to, new Map());
        linked.get(link.to)!.set(JSON.stringify(normalized(values), bigintText), values);
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
        if (!(error instanceof Retired) && !(error instanceof RateLimited)) throw error;
      }
    };
  const created: CreatedPet[] = [];
  const prefix = namePrefix(runId);

  /**
   * A body's `name`, where its schema has a string one, begins with this run's prefix: what it creates or renames is
   * findable.
   */
  const marked = (valid: ValidRequest): ValidRequest => {
    const body = valid.body as Record<string, unknown> | undefined;
    const bodySchema = bodySchemaOf(operation(valid.request.operationId))?.schema;
    const nameSchema = bodySchema === undefined ? undefined : resolve(bodySchema).properties?.['name'];
    if (body === undefined || typeof body['name'] !== 'string' || nameSchema === undefined) return valid;
    const maxLength = resolve(nameSchema).maxLength ?? Infinity;
    const renamed = {
      ...body,
      name: prefix + [...body['name']].slice(0, Math.max(0, maxLength - [...prefix].length)).join(''),
    };
    return { ...valid, body: renamed, request: { ...valid.request, payload: toJson(renamed) } };
  };
  const pathParameters = (operationId: string) => pathParametersOf(operation(operationId).path).length;
  const linkedHeaders = (operationId: string) => linkedHeadersOf(links, operationId);

  /** Sends a valid request of `operationId`, counting it and the status it got. */
  const sendValid = async (operationId: string, request: ApiRequest) => {
    const count = counts.get(operationId)!;
    count.valid += 1;
    const answer = (await sender.send(request)) as LiveAnswer;
    count.statuses.set(answer.statusCode, (count.statuses.get(answer.statusCode) ?? 0) + 1);
    return answer;
  };

  /**
   * What any operation's valid request must get: an answer its document describes, and a 2xx; or,
   * when its path names a resource the generators made up (no link gave it), the documented 404
   * for a missing one. Then what is known of the operation beyond its schemas, if anything.
   */
  const checkValid = async ({ generated, pick, useLink }: ValidCase) => {
    const operationId = generated.request.operationId;
    const choices = [...(linked.get(operationId)?.values() ?? [])];
    const viaLink = useLink && choices.length > 0;
    const valid = marked(viaLink ? relinked(generated, choices[pick % choices.length]!) : generated);
    const { request } = valid;
    const answer = await sendValid(operationId, request);
    const documented = (status: number) => String(status) in operation(operationId).object.responses;
    // A header a link fills (If-Match, from an ETag) that the request lacks: an operation that
    // documents 428 needs it, and says so.
    const lacking = linkedHeaders(operationId).filter((name) => request.headers[name] === undefined);
    if (answer.statusCode === 428 && documented(428) && lacking.length > 0) {
      const named = parametersOf(operation(operationId)).find(
        (parameter) => parameter.name.toLowerCase() === lacking[0],
      )!.name;
      expectError(request, answer, { status: 428, code: 'PRECONDITION_REQUIRED', mentions: named });
      return;
    }
    // What a link gave may be stale: this run changed or removed that resource since (a 412 or 404, when documented).
    if (
      viaLink &&
      (answer.statusCode === 412 || answer.statusCode === 404) &&
      documented(answer.statusCode) &&
      Object.values(valid.params).some((value) => touched.has(String(value)))
    ) {
      expectContract(request, answer);
      return;
    }
    if (
      answer.statusCode === 404 &&
      !viaLink &&
      pathParameters(operationId) > 0 &&
      '404' in operation(operationId).object.responses
    ) {
      // A made-up id may or may not exist on a live store: its 404 must say which resource is missing.
      expectContract(request, answer);
      const problems = Object.values(valid.params)
        .filter((value) => !String(answer.json?.message).includes(String(value)))
        .map((value) => `expected the message to name ${String(value)}`);
      if (answer.json?.code === 'ROUTE_NOT_FOUND') problems.push('ROUTE_NOT_FOUND: the operation is not served');
      if (problems.length > 0)
        throw new ContractViolation(request, `${describe(request)} → 404 ${answer.body}\n  ${problems.join('\n  ')}`);
      known[operationId]?.(valid, answer);
      return;
    }
    if (answer.statusCode < 200 || answer.statusCode > 299) {
      expectContract(request, answer, [
        `expected a 2xx: a valid request${viaLink ? ' naming what this run created (by a link of the spec)' : ''} must be accepted`,
      ]);
    }
    expectContract(request, answer);
    counts.get(operationId)!.succeeded += 1;
    if (!SAFE_METHODS.has(operation(operationId).method))
      for (const value of Object.values(valid.params)) touched.add(String(value));
    expectWritten(valid, answer);
    await expectStaleRefused(operationId, request, answer);
    known[operationId]?.(valid, answer);
  };

  /**
   * A change made with the tag a link gave (If-Match), that answered a new tag (ETag): the same
   * request again holds a stale tag, and must be refused with the documented 412 naming the new one.
   */
  const expectStaleRefused = async (operationId: string, request: ApiRequest, answer: LiveAnswer) => {
    const etag = answer.headers['etag'];
    const sent = linkedHeaders(operationId)
      .map((name) => request.headers[name])
      .find((value) => value !== undefined);
    if (
      SAFE_METHODS.has(operation(operationId).method) ||
      !documented412(operationId) ||
      sent === undefined ||
      sent === '*' ||
      typeof etag !== 'string' ||
      etag === sent
    )
      return;
    expectError(request, await sender.send(request), { status: 412, code: 'PRECONDITION_FAILED', mentions: etag });
  };
  const documented412 = (operationId: string) => '412' in operation(operationId).object.responses;

  /**
   * A write answers with what it wrote: when a request of an unsafe method sends a JSON object and
   * its 2xx answer is an object whose schema has a field of the same name, the answer holds the value
   * sent (a create's new pet, an update's changed one). A handler that ignores its body fails here.
   */
  const expectWritten = ({ request, body }: ValidRequest, answer: LiveAnswer) => {
    if (SAFE_METHODS.has(operation(request.operationId).method) || !isObject(body) || !isObject(answer.json)) return;
    const fields = answerFieldsOf(request.operationId, answer.statusCode);
    // In a JSON Merge Patch (RFC 7396), null removes the member: the answer must not hold it.
    const mergePatch = bodySchemaOf(operation(request.operationId))?.mediaType === 'application/merge-patch+json';
    const written = (name: string) => (mergePatch && body[name] === null ? undefined : body[name]);
    const differing = Object.keys(body).filter(
      (name) => fields.has(name) && !isDeepStrictEqual(normalized(answer.json[name]), normalized(written(name))),
    );
    if (differing.length > 0) {
      throw new ContractViolation(
        request,
        `${describe(request)} → ${answer.statusCode} ${answer.body}\n  the answer does not hold what was written: ${differing.join(', ')}`,
      );
    }
  };
  const answerFieldsOf = (operationId: string, status: number): Set<string> => {
    const response = resolveRef(contract.spec, operation(operationId).object.responses[String(status)]) as {
      content?: Record<string, { schema: Schema }>;
    };
    const schema = response.content?.['application/json']?.schema;
    return new Set(schema === undefined ? [] : Object.keys(resolveRef(contract.spec, schema).properties ?? {}));
  };

  /** What is known of the three operations beyond their schemas, checked after the generic checks of checkValid. */
  const known: Record<string, (valid: ValidRequest, answer: LiveAnswer) => void> = {
    createPet(valid, answer) {
      expectEqual(
        valid.request,
        answer,
        { id: answer.json?.id, ...(valid.body as object) },
        'the created pet is what was sent, with a new id',
      );
      created.push({ request: valid.request, answer, pet: answer.json });
    },
    listPets(valid, answer) {
      checkPage(valid.request, answer, {
        limit: Number(valid.query['limit'] ?? DEFAULT_LIMIT),
        status: valid.query['status'],
      });
    },
    getPet({ request, params }, answer) {
      if (answer.statusCode === 404)
        return expectError(request, answer, { status: 404, code: 'PET_NOT_FOUND', mentions: String(params['petId']) });
      if (BigInt(answer.json.id) !== BigInt(String(params['petId'])))
        throw new ContractViolation(request, `${describe(request)}: answered pet ${answer.json.id}`);
    },
  };
  // listPets' limit, read once; only the checks of listPets use it.
  const listLimit = has('listPets')
    ? resolve(parametersOf(operation('listPets')).find((parameter) => parameter.name === 'limit')!.schema)
    : undefined;
  const DEFAULT_LIMIT = Number(listLimit?.default);
  const MAX_LIMIT = Number(listLimit?.maximum);

  /**
   * A page of a live store: the contract, at most `limit` pets of the filter in ascending id order, and a next link
   * that keeps path, limit and status.
   */
  const checkPage = (
    request: ApiRequest,
    answer: LiveAnswer,
    { limit, status }: { limit: number; status: unknown },
  ): ApiRequest | undefined => {
    if (answer.statusCode !== 200) expectContract(request, answer, ['expected 200: a valid request must be accepted']);
    expectContract(request, answer);
    const pets = answer.json as { id: number | bigint; status?: unknown }[];
    const problems: string[] = [];
    if (pets.length > limit) problems.push(`${pets.length} pets for limit ${limit}`);
    if (status !== undefined && pets.some((pet) => pet.status !== status))
      problems.push(`a pet without status ${String(status)}`);
    if (pets.some((pet, index) => index > 0 && BigInt(pet.id) <= BigInt(pets[index - 1]!.id)))
      problems.push('ids not in ascending order');
    const link = answer.headers['link'];
    let next: ApiRequest | undefined;
    if (link !== undefined) {
      const resolved = keptNextPage(link, answer.url, { limit, status });
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
      throw new ContractViolation(request, `${describe(request)} → ${answer.body}\n  ${problems.join('\n  ')}`);
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
    const first = {
      ...valid.request,
      headers: { ...valid.request.headers, 'idempotency-key': bare ? key : `"${key}"` },
    };
    const answer = await sendValid('createPet', first);
    if (answer.statusCode !== 201 || answer.headers['idempotent-replayed'] !== undefined)
      expectContract(first, answer, ['expected 201, not a replay: a new Idempotency-Key']);
    expectEqual(first, answer, { id: answer.json?.id, ...body }, 'the created pet is what was sent, with a new id');
    counts.get('createPet')!.succeeded += 1;
    created.push({ request: first, answer, pet: answer.json });
    const retry = {
      ...first,
      headers: { ...first.headers, 'idempotency-key': bare ? `"${key}"` : key },
      payload: respelt(body),
    };
    const replay = await sender.send(retry);
    if (replay.statusCode !== 201 || replay.headers['idempotent-replayed'] !== 'true')
      expectContract(retry, replay, ['expected a 201 replay (Idempotent-Replayed: true)']);
    expectEqual(retry, replay, answer.json, 'a retry with the same key and body: the first answer');
    if (replay.headers['location'] !== answer.headers['location'])
      throw new ContractViolation(
        retry,
        `${describe(retry)}: the replay's Location ${String(replay.headers['location'])} is not the first answer's ${String(answer.headers['location'])}`,
      );
    const other = marked(another).body;
    if (isDeepStrictEqual(normalized(other), normalized(body))) return;
    const changed = { ...first, payload: toJson(other) };
    expectError(changed, await sender.send(changed), {
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
      mentions: `pet ${String(answer.json.id)}`,
    });
  };

  // Each valid case is one operation's request: ids from a link three times in four, once there are some.
  const validCase = (generated: fc.Arbitrary<ValidRequest>) =>
    fc.record({
      generated,
      pick: fc.nat(),
      useLink: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    });
  const properties: NamedProperty[] = [
    {
      name: 'a valid request is accepted and its answer keeps the contract',
      property: fc.asyncProperty(fc.oneof(...requests.valid.map(validCase)), excused(checkValid)),
    },
    ...(chosen.some((candidate) => candidate.operationId === 'createPet')
      ? [
          {
            name: 'a create with an Idempotency-Key is made once: a retry replays it, another body gets 422',
            property: fc.asyncProperty(
              validRequest(operation('createPet')),
              validRequest(operation('createPet')),
              fc.boolean(),
              excused(checkKeyed),
            ),
          },
        ]
      : []),
    {
      name:
        released === undefined
          ? 'a request that breaks one rule gets the documented 4xx naming what to fix'
          : 'a request the version refuses gets an answer its document describes',
      property: fc.asyncProperty(
        fc.oneof(...requests.broken),
        excused((broken) => (released === undefined ? expectRefused : expectDescribed)(sender, broken)),
      ),
    },
    ...(requests.withBadKey === undefined
      ? []
      : [
          {
            name: 'a request without a valid key gets 401, whatever else is wrong with it',
            property: fc.asyncProperty(
              requests.withBadKey,
              excused((request) => expectUnauthorized(sender, request)),
            ),
          },
        ]),
  ];

  const coverage = async (seed: number) => {
    for (const {
      operation: { operationId },
      valid,
    } of requests.made) {
      const count = counts.get(operationId)!;
      if (isRetired(operationId) || count.succeeded > 0) continue;
      const tries = fc.sample(valid, { seed, numRuns: COVERAGE_TRIES });
      for (const [index, generated] of tries.entries()) {
        if (count.succeeded > 0) break;
        await excused(checkValid)({ generated, pick: index, useLink: true });
      }
    }
    const unanswered = [...counts.values()]
      .filter((count) => count.succeeded === 0 && !isRetired(count.operationId))
      .map((count) => `${count.operationId} (${count.method} ${count.path}): ${whyUnanswered(count)}`);
    return { unanswered };
  };
  const whyUnanswered = (count: OperationCount) => {
    if (count.unmade !== undefined) return `no valid request could be generated: ${count.unmade}`;
    const statuses = [...count.statuses].map(([status, times]) => `${status} ×${times}`).join(', ');
    const needsLink = pathParameters(count.operationId) > 0 && !linked.has(count.operationId);
    return (
      `none of its ${count.valid} valid requests got a 2xx (${statuses})` +
      (needsLink
        ? `; its path names a resource, and no link of ${contract.name} gave one from an answer of this run${readOnly ? ' (read-only: it creates nothing, so the target must hold data)' : ''}`
        : '')
    );
  };

  const readBack = async () => {
    // A pet that a later request changed (by a link, with a 2xx) is not what its create answered.
    const kept = created.filter(({ pet }) => !touched.has(String(pet['id'])));
    for (const { request, answer, pet } of has('getPet') ? kept : []) {
      // The pet's address is its Location, resolved against the URL that created it.
      const location = new URL(String(answer.headers['location']), answer.url).toString();
      const get: ApiRequest = {
        operationId: 'getPet',
        method: 'GET',
        url: location,
        headers: { authorization: request.headers['authorization']! },
      };
      await excused(async () =>
        expectEqual(get, await sender.send(get), pet, `the pet created by ${describe(request)}, read at its Location`),
      )();
    }
    const statuses = [
      undefined,
      ...new Set(kept.map(({ pet }) => pet['status']).filter((status) => status !== undefined)),
    ];
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
        throw new ContractViolation(
          first,
          `walking every page of listPets${status === undefined ? '' : ` with status ${String(status)}`} from its first page (${pages} pages): ` +
            `${missing.length > 0 ? `created pets never listed: ${missing.join(', ')}` : ''}${twice.length > 0 ? ` listed more than once: ${twice.join(', ')}` : ''}`,
        );
      }
    }
    return { pets: created.length, ...(note === undefined ? {} : { note }) };
  };

  // The change feed (listPetEvents): where it ended before this run wrote anything, so that the
  // events this run caused can be read back after it, however long the feed already is.
  const feedOperation = has('listPetEvents') && !readOnly ? operation('listPetEvents') : undefined;
  let feedStart: string | undefined;
  /**
   * Follows the feed's next links from `url` until an empty page (or maxPages), handing each page's events on; the URL
   * of the next read.
   */
  const walkFeed = async (url: string, onEvents: (events: Record<string, unknown>[], request: ApiRequest) => void) => {
    const authorization = `Bearer ${apiKey}`;
    for (let pages = 0; pages < maxPages; pages++) {
      const request: ApiRequest = { operationId: 'listPetEvents', method: 'GET', url, headers: { authorization } };
      const answer = (await sender.send(request)) as LiveAnswer;
      expectContract(request, answer, answer.statusCode === 200 ? [] : ['expected 200']);
      const events = answer.json as Record<string, unknown>[];
      onEvents(events, request);
      const target = /<([^>]+)>;\s*rel="next"/.exec(String(answer.headers['link']))?.[1];
      if (target === undefined)
        throw new ContractViolation(request, `${describe(request)}: the answer has no next link`);
      const next = new URL(target, answer.url);
      url = next.pathname + next.search;
      if (events.length === 0) return url;
    }
    return undefined;
  };
  const markFeed = async () => {
    if (feedOperation !== undefined)
      feedStart = await walkFeed(`${basePathOf(contract.spec)}${feedOperation.path}?limit=1000`, () => undefined);
  };
  const readFeed = async (): Promise<{ events: number; note?: string }> => {
    if (feedOperation === undefined || created.length === 0) return { events: 0 };
    if (feedStart === undefined)
      return {
        events: 0,
        note: `the feed was longer than ${maxPages} pages before the run (--max-pages): not read back`,
      };
    const mine = new Set(created.map(({ pet }) => String(pet['id'])));
    const seen = new Set<string>();
    const byPet = new Map<string, Record<string, unknown>[]>();
    let first: ApiRequest | undefined;
    const end = await walkFeed(feedStart, (events, request) => {
      first ??= request;
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
      return {
        events: seen.size,
        note: `the feed's events of this run were read up to ${maxPages} pages (--max-pages)`,
      };
    for (const { pet, request } of created) {
      const events = byPet.get(String(pet['id'])) ?? [];
      const creations = events.filter((event) => event['type'] === 'pet.created');
      if (creations.length !== 1)
        throw new ContractViolation(
          request,
          `${describe(request)}: pet ${String(pet['id'])} was created, and the feed has ${creations.length} pet.created events for it`,
        );
      if (
        JSON.stringify(normalized(creations[0]!['pet']), bigintText) !== JSON.stringify(normalized(pet), bigintText) ||
        String(creations[0]!['version']) !== '1'
      ) {
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
    return { events: seen.size };
  };

  return {
    properties,
    coverage,
    counts: () => [...counts.values()],
    readBack,
    created: () => created,
    markFeed,
    readFeed,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const bigintText = (_key: string, value: unknown) => (typeof value === 'bigint' ? String(value) : value);
