// Request arbitraries for every operation of an OpenAPI document, read from its parameters and
// request bodies, signed with the key they are given: valid requests, requests that break one rule
// (with the response they must get), and requests without a valid key.
import fc from 'fast-check';
import { badAuthorization, unauthorized } from './bad-keys.js';
import { brokenRequests } from './broken-requests.js';
import type { Contract } from './document-contract.js';
import type { Operation } from './openapi-document.js';
import { requestBuilder } from './request-builder.js';
import {
  NO_QUERY_KNOWLEDGE,
  type ApiRequest,
  type BrokenRequest,
  type QueryKnowledge,
  type ValidRequest,
} from './request-parts.js';
import { validRequests } from './valid-requests.js';

export { badAuthorization, unauthorized } from './bad-keys.js';
export {
  bodySchemaOf,
  inHeader,
  NO_VOCABULARY,
  parametersOf,
  type ApiRequest,
  type BrokenRequest,
  type ErrorVocabulary,
  type Expectation,
  type OpaqueParameter,
  type OpaqueParameters,
  type Parameter,
  type QueryKnowledge,
  type ValidRequest,
} from './request-parts.js';

/**
 * The request arbitraries of one document: valid requests, requests that break one rule, and
 * requests without a valid key, for each of its operations, signed with `apiKey`. npm run compat
 * draws them from a released version's document; everything else from openapi.yaml's.
 */
export function requestGenerators(
  contract: Contract,
  apiKey: string,
  query: QueryKnowledge = NO_QUERY_KNOWLEDGE,
): RequestGenerators {
  // Building a document's arbitraries (strings drawn from its patterns above all) costs more than
  // drawing a few hundred requests from them: a contract, cached by its document (contractOf), keeps
  // its generators, and they keep each operation's arbitraries.
  let byKey = generatorsOf.get(contract);
  if (byKey === undefined) generatorsOf.set(contract, (byKey = new WeakMap()));
  let byQuery = byKey.get(query);
  if (byQuery === undefined) byKey.set(query, (byQuery = new Map()));
  let generators = byQuery.get(apiKey);
  if (generators === undefined) byQuery.set(apiKey, (generators = createRequestGenerators(contract, apiKey, query)));
  return generators;
}
export type RequestGenerators = ReturnType<typeof createRequestGenerators>;
const generatorsOf = new WeakMap<Contract, WeakMap<QueryKnowledge, Map<string, RequestGenerators>>>();

function createRequestGenerators(contract: Contract, apiKey: string, query: QueryKnowledge) {
  const { operations } = contract;
  const builder = requestBuilder(contract, apiKey, query);
  const { patternOf, validHeaderValue } = builder;
  const { validRequest, relinked } = validRequests(contract, builder);
  const brokenRequest = brokenRequests(builder, validRequest);

  /**
   * The request arbitraries of some operations (all of them by default), and, by operationId, why
   * none could be made for an operation whose requests need what is not generated here.
   */
  function requestsOf(operationIds: readonly string[] = operations.map((operation) => operation.operationId)) {
    const made: { operation: Operation; valid: fc.Arbitrary<ValidRequest>; broken: fc.Arbitrary<BrokenRequest> }[] = [];
    const unmade = new Map<string, string>();
    for (const operation of operations.filter((candidate) => operationIds.includes(candidate.operationId))) {
      try {
        made.push({ operation, valid: validRequest(operation), broken: brokenRequest(operation) });
      } catch (error) {
        const message = (error as Error).message;
        unmade.set(
          operation.operationId,
          message.startsWith(`${operation.operationId}: `) ? message : `${operation.operationId}: ${message}`,
        );
      }
    }
    const valid = made.map((entry) => entry.valid);
    const broken = made.map((entry) => entry.broken);
    const requestsOfEach = (entries: typeof made) =>
      entries.flatMap((entry) => [
        entry.valid.map((request) => request.request),
        entry.broken.map((request) => request.request),
      ]);
    const any: fc.Arbitrary<ApiRequest> = fc.oneof(...requestsOfEach(made));
    // The requests of operations that need a key, without a valid one: each must get 401, whatever
    // else is wrong with it. None when no operation needs a key (`security: []` on each).
    const keyed = made.filter((entry) => (entry.operation.object.security ?? contract.spec.security ?? []).length > 0);
    const withBadKey =
      keyed.length === 0
        ? undefined
        : fc
            .tuple(fc.oneof(...requestsOfEach(keyed)), badAuthorization(apiKey))
            .map(([request, authorization]) => unauthorized(request, authorization));
    return { made, valid, broken, any, withBadKey, unmade };
  }

  return { patternOf, validHeaderValue, validRequest, brokenRequest, requestsOf, relinked };
}
