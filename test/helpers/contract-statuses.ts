// Every status openapi.yaml documents for every operation is produced and checked against the
// spec, on one store a test file: test/contract/contract.test.ts (the in-memory store) and
// contract-postgres.test.ts (PostgreSQL; CI's npm test runs it, a maintainer's leaves it out). The
// requests come from the spec: generated for the operation (valid, broken, without a key), with
// the ids its links give; what makes each status is read from the operation (a path
// that names a resource: 404; roles in its security requirement: 403; a body: 413 and 415; an x-sunset: 410; an
// Idempotency-Key header: 422; a header a link fills from an ETag (If-Match): 412 with a stale tag, 428 without one;
// any: 429 from a quota of one request, 500 and 503 from a failing store). An operation that documents 428 is sent
// `If-Match: *` wherever its precondition is not what is tested. A status documented with no way here to make it fails
// the suite, naming it.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { BODY_LIMIT } from '../../src/app.js';
import { keyTableOf } from '../../src/auth/key-table.js';
import { requiredRolesOf, rolesOf } from '../../src/auth/roles.js';
import { ServiceUnavailable } from '../../src/errors/api-errors.js';
import { lifecycleOf } from '../../src/openapi/lifecycle.js';
import { pathParametersOf, type Operation } from '../../src/openapi/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { standInStore } from './stand-in-store.js';
import { allRoles, API_KEY, buildTestApp, NO_ROLE_API_KEY, TEST_ENDPOINT } from './build-app.js';
import { checkContract, documentedStatuses, operation as operationOf, operations, spec } from './contract.js';
import { startTestDatabase, whyNoPostgres } from './postgres.js';
import {
  brokenRequest,
  inHeader,
  relinked,
  unauthorized,
  validRequest,
  type ApiRequest,
  type ValidRequest,
} from './requests.js';
import { linkedBodyMembersOf, linkedHeadersOf, linkedValues, linksOf, parametersOf } from 'openapi-contract-engine';

type Send = (request: ApiRequest) => Promise<LightMyRequestResponse>;

/**
 * How to make one status: on which store, at what time, by sending what (the first response with the status, else the
 * last).
 */
interface Producer {
  store?: 'failing' | 'unavailable';
  /** A quota of one request an hour for every client (src/limits/quotas.ts). */
  quota?: true;
  at?: number;
  produce(send: Send, status: number): Promise<LightMyRequestResponse>;
}

const SEED = 20261126;
const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns = 30) => fc.sample(arbitrary, { seed: SEED, numRuns });
const links = linksOf(spec, 'openapi.yaml');
const validOf = (operation: Operation) => sample(validRequest(operation));

async function firstResponding(
  send: Send,
  requests: readonly ApiRequest[],
  status: number,
): Promise<LightMyRequestResponse> {
  let last: LightMyRequestResponse | undefined;
  for (const request of requests) {
    last = await send(request);
    if (last.statusCode === status) return last;
  }
  if (last === undefined) throw new Error(`no request to send for status ${status}`);
  return last;
}

/** Whether `operation`'s requests name a resource: in the path, or in a body member a link fills (petId). */
const namesResource = (operation: Operation) =>
  pathParametersOf(operation.path).length > 0 || linkedBodyMembersOf(links, operation.operationId).length > 0;

/** How many resources linkedValid makes for an operation: enough that one is in a state that accepts it. */
const LINKED = 8;

/**
 * Valid requests of `operation` that name what exists: ids taken, by the spec's links, from the
 * responses of their source operations, themselves sent on what exists (an order of a pet just added).
 * Each names one of several resources in turn, so that some is in a state that accepts it (a pet
 * added `available`). A link whose sources name nothing (an empty list) gives way to the next.
 */
async function linkedValid(send: Send, operation: Operation): Promise<ValidRequest[]> {
  for await (const requests of linkedAlternatives(send, operation)) return requests;
  return validOf(operation);
}

/** Each way links give `operation` what exists, in the order of the links, then requests naming nothing. */
async function* linkedAlternatives(send: Send, operation: Operation): AsyncGenerator<ValidRequest[]> {
  const valid = validOf(operation);
  if (namesResource(operation))
    for (const link of links.filter((candidate) => candidate.to === operation.operationId)) {
      for await (const sources of linkedAlternatives(send, operationOf(link.from))) {
        const given: Record<string, unknown>[] = [];
        for (const source of sources) {
          const response = await send(source.request);
          const values =
            String(response.statusCode) === link.status
              ? linkedValues(link, response.json(), response.headers)
              : undefined;
          if (values !== undefined && given.push(values) === LINKED) break;
        }
        if (given.length > 0) yield valid.map((request, index) => relinked(request, given[index % given.length]!));
      }
    }
  yield valid;
}

const withBody = (request: ApiRequest, payload: string, headers: Record<string, string> = {}): ApiRequest => ({
  ...request,
  headers: { ...request.headers, ...headers },
  payload,
});

/** The headers that links to `operation` fill from a response's headers (If-Match, from an ETag). */
const linkedHeaders = (operation: Operation) => linkedHeadersOf(links, operation.operationId);

/** The pattern of a schema given by reference into components/schemas. */
/** The schema of components/schemas that `schema` references. */
const componentOf = (schema: unknown) =>
  spec.components!.schemas![(schema as { $ref: string }).$ref.replace('#/components/schemas/', '')] as {
    pattern?: string;
    properties?: Record<string, unknown>;
  };

/** The pattern of a schema given by reference into components/schemas. */
const resolvedPattern = (schema: unknown): string => componentOf(schema).pattern!;

/** How `operation` is made to respond with `status`, or undefined when nothing here can. */
function producerOf(operation: Operation, status: number): Producer | undefined {
  const hasBody = operation.object.requestBody !== undefined;
  // An operation that needs a precondition (428 documented) is sent one that any version meets.
  const anyVersion =
    '428' in operation.object.responses ? Object.fromEntries(linkedHeaders(operation).map((name) => [name, '*'])) : {};
  const valid = () =>
    validOf(operation).map(({ request }) => ({ ...request, headers: { ...request.headers, ...anyVersion } }));
  const linked = async (send: Send) => (await linkedValid(send, operation)).map(({ request }) => request);
  const sending = (requests: () => ApiRequest[]) => (send: Send, wanted: number) =>
    firstResponding(send, requests(), wanted);
  if (status >= 200 && status < 300)
    return {
      produce: async (send, wanted) =>
        firstResponding(
          send,
          (await linkedValid(send, operation)).map(({ request }) => request),
          wanted,
        ),
    };
  switch (status) {
    case 400:
      return {
        produce: sending(() =>
          sample(brokenRequest(operation), 100)
            .filter((broken) => broken.expect.status === 400)
            .map((broken) => broken.request),
        ),
      };
    case 401:
      return { produce: sending(() => valid().map((request) => unauthorized(request, undefined))) };
    case 403:
      // A valid key without the roles the operation's security requirement names.
      return requiredRolesOf(operation, spec).length > 0
        ? {
            produce: sending(() =>
              valid().map((request) => ({
                ...request,
                headers: { ...request.headers, authorization: `Bearer ${NO_ROLE_API_KEY}` },
              })),
            ),
          }
        : undefined;
    case 404:
      // Ids the generators make up, on an empty store: none names a pet.
      return pathParametersOf(operation.path).length > 0 ? { produce: sending(valid) } : undefined;
    case 410: {
      const sunset = lifecycleOf(operation, operations).deprecation?.sunset?.at;
      if (sunset !== undefined) return { at: sunset, produce: sending(valid) };
      // A feed's cursor of the right shape that this store never issued (another feed's): expired. In
      // the query (listPetEvents), or the body (setWebhookPosition, on what a link says exists).
      const inQuery = parametersOf(operation).find(
        (parameter) => parameter.in === 'query' && parameter.name === 'after',
      );
      const body = (operation.object.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)
        ?.content?.['application/json']?.schema;
      // The body's event: where to stand after (setWebhookPosition), or the one to resend (resendWebhookEvent).
      const member = ['after', 'eventId'].find((name) => body !== undefined && componentOf(body).properties?.[name]);
      const inBody = member === undefined ? undefined : componentOf(body).properties![member];
      const schema = inQuery?.schema ?? inBody;
      if (schema === undefined) return undefined;
      const shaped = sample(fc.stringMatching(new RegExp(resolvedPattern(schema))), 10);
      if (inQuery === undefined)
        return {
          produce: async (send, wanted) =>
            firstResponding(
              send,
              (await linked(send)).flatMap((request) =>
                shaped.map((cursor) => withBody(request, JSON.stringify({ [member!]: cursor }))),
              ),
              wanted,
            ),
        };
      return {
        produce: sending(() =>
          valid().flatMap((request) =>
            shaped.map((cursor) => ({
              ...request,
              url: `${request.url}${request.url.includes('?') ? '&' : '?'}after=${encodeURIComponent(cursor)}`,
            })),
          ),
        ),
      };
    }
    case 413:
      return hasBody
        ? {
            produce: sending(() =>
              valid().map((request) => withBody(request, `${String(request.payload)}${' '.repeat(BODY_LIMIT)}`)),
            ),
          }
        : undefined;
    case 415:
      return hasBody
        ? {
            produce: sending(() =>
              valid().map((request) =>
                withBody(request, String(request.payload), { 'content-type': 'application/xml' }),
              ),
            ),
          }
        : undefined;
    case 412:
      // A tag the service never gave, on what a link says exists.
      return linkedHeaders(operation).length > 0
        ? {
            produce: async (send, wanted) =>
              firstResponding(
                send,
                (await linked(send)).map((request) => ({
                  ...request,
                  headers: {
                    ...request.headers,
                    ...Object.fromEntries(linkedHeaders(operation).map((name) => [name, '"stale"'])),
                  },
                })),
                wanted,
              ),
          }
        : undefined;
    case 428:
      // What a link says exists, without the header the link fills.
      return linkedHeaders(operation).length > 0
        ? {
            produce: async (send, wanted) =>
              firstResponding(
                send,
                (await linked(send)).map((request) => ({
                  ...request,
                  headers: Object.fromEntries(
                    Object.entries(request.headers).filter(([name]) => !linkedHeaders(operation).includes(name)),
                  ),
                })),
                wanted,
              ),
          }
        : undefined;
    case 422: {
      // A key used again for another request: another body, or another resource.
      if (!inHeader(operation).some((parameter) => parameter.name === 'Idempotency-Key')) return undefined;
      return {
        async produce(send, wanted) {
          const keyed = (request: ApiRequest) => ({
            ...request,
            headers: { ...request.headers, ...anyVersion, 'idempotency-key': '"seed"' },
          });
          const [first, ...others] = (namesResource(operation) ? await linked(send) : valid()).map(keyed);
          await send(first!);
          return firstResponding(
            send,
            [...others, ...valid().map(keyed)].filter(
              (request) => request.payload !== first!.payload || request.url !== first!.url,
            ),
            wanted,
          );
        },
      };
    }
    case 409:
      // What a body names does not exist (placeOrder's petId, made up); or what the path names was
      // moved first by another write of it (completeOrder, then cancelOrder of the same order); or
      // what one of the links to it names cannot be changed (an endpoint of the webhooks file).
      if (pathParametersOf(operation.path).length === 0) return { produce: sending(valid) };
      return {
        async produce(send, wanted) {
          for (const link of links.filter((candidate) => candidate.to === operation.operationId)) {
            const [source] = await linkedValid(send, operationOf(link.from));
            const response = await send(source!.request);
            if (String(response.statusCode) !== link.status) continue;
            const values = linkedValues(link, response.json(), response.headers);
            if (values === undefined) continue;
            const named = await send(relinked(validOf(operation)[0]!, values).request);
            if (named.statusCode === wanted) return named;
          }
          const siblings = operations.filter(
            (other) =>
              other !== operation &&
              other.method !== 'get' &&
              pathParametersOf(other.path).join() === pathParametersOf(operation.path).join(),
          );
          let last: LightMyRequestResponse | undefined;
          for (const named of await linkedValid(send, operation)) {
            for (const sibling of siblings) await send(relinked(validOf(sibling)[0]!, named.params).request);
            last = await send(named.request);
            if (last.statusCode === wanted) return last;
          }
          return last!;
        },
      };
    case 429:
      // The second request within the hour of a one-request quota.
      return {
        quota: true,
        async produce(send, wanted) {
          const [first, ...others] = valid();
          await send(first!);
          return firstResponding(send, others, wanted);
        },
      };
    case 500:
      return { store: 'failing', produce: sending(valid) };
    case 503:
      return { store: 'unavailable', produce: sending(valid) };
    default:
      return undefined;
  }
}

/**
 * Whether only reads link to `operation` (setWebhookPosition, resendWebhookEvent): what it names is
 * what the store already holds, not what a request makes, so its store is seeded.
 */
const onlyReadsLinkTo = (operation: Operation) => {
  const sources = links.filter((link) => link.to === operation.operationId).map((link) => operationOf(link.from));
  return sources.length > 0 && sources.every((source) => source.method === 'get');
};

/**
 * What reads give to the operations only they link to: a pet (so an event), and an attempt to
 * deliver it to the webhooks file's endpoint of the test app (no deliveries run in process).
 */
async function seed(store: PetStore): Promise<void> {
  await store.create({ name: 'Seed', categoryId: 1 });
  const [event] = (await store.listEvents(undefined, 1)).events;
  await store.deliveries.logAttempt(TEST_ENDPOINT, {
    at: Date.now(),
    event: event!.seq,
    status: 503,
    result: 'failed',
    durationMs: 5,
    error: 'responded with 503',
    resend: false,
  });
}

// A store that fails as a bug would (500), and one that says its database cannot be reached (503),
// as the PostgreSQL store does (its real outages are tested in test/store/postgres-faults.test.ts).
const stores = {
  failing: standInStore({}, () => new Error('store down')),
  unavailable: standInStore({}, () => new ServiceUnavailable()),
};

/** The cases on one real store (the failing and unavailable stand-ins replace it where a case needs them). */
export async function checkEveryStatus(storeName: 'in-memory store' | 'PostgreSQL store'): Promise<void> {
  let createStore: (t: Test) => Promise<PetStore> = async () => createMemoryPetStore();
  let skip: string | boolean = false;
  if (storeName === 'in-memory store')
    t.test('every status of every operation in openapi.yaml has a way to be made here', async (t) => {
      for (const operation of operations) {
        for (const status of documentedStatuses(operation.operationId)) {
          t.ok(
            producerOf(operation, status),
            `${operation.operationId} documents ${status}${producerOf(operation, status) === undefined ? ': nothing here makes it; add how to producerOf in test/helpers/contract-statuses.ts' : ''}`,
          );
        }
      }
    });
  else {
    const database = await startTestDatabase(t);
    createStore = (t) => database!.createStore(t);
    skip = database === undefined ? (whyNoPostgres() ?? true) : false;
  }
  t.test(storeName, { skip }, async (t) => {
    for (const operation of operations) {
      for (const status of documentedStatuses(operation.operationId)) {
        const producer = producerOf(operation, status);
        if (producer === undefined) continue;
        t.test(`${operation.operationId} answers ${status} as documented`, async (t) => {
          const store = producer.store === undefined ? await createStore(t) : stores[producer.store];
          if (producer.store === undefined && onlyReadsLinkTo(operation)) await seed(store);
          const { app } = await buildTestApp(t, {
            store,
            // Its own instant, or buildTestApp's clock, before every sunset: the statuses do not depend on the day the
            // test runs.
            ...(producer.at === undefined ? {} : { clock: () => producer.at! }),
            ...(producer.quota === undefined
              ? {}
              : {
                  apiKeys: {
                    table: keyTableOf([allRoles(API_KEY, spec)], rolesOf(spec), {
                      default: { requests: 1, windowSeconds: 3600 },
                      clients: new Map(),
                    }),
                  },
                }),
          });
          const send: Send = ({ method, url, headers, payload }) =>
            app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
          const response = await producer.produce(send, status);
          t.equal(response.statusCode, status, `${response.statusCode} ${response.body}`);
          checkContract(t, response, operation.operationId);
        });
      }
    }
  });
}
