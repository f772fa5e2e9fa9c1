// What every generated request of one document is built with: the request itself (signed with the
// key, its media type), its URL from the document's base path, and the values of its parameters.
import fc from 'fast-check';
import type { Contract } from './document-contract.js';
import { basePathOf, type Operation } from './openapi-document.js';
import {
  bodySchemaOf,
  fitsUrl,
  NO_QUERY_KNOWLEDGE,
  type ApiRequest,
  type Parameter,
  type QueryKnowledge,
} from './request-parts.js';
import { matching, schemaArbitraries } from './schema-arbitraries.js';

/** Memoizes an arbitrary per operation: arbitraries are immutable, so one serves every run. */
export function perOperation<T>(
  make: (operation: Operation) => fc.Arbitrary<T>,
): (operation: Operation) => fc.Arbitrary<T> {
  const made = new WeakMap<Operation, fc.Arbitrary<T>>();
  return (operation) => {
    let arbitrary = made.get(operation);
    if (arbitrary === undefined) made.set(operation, (arbitrary = make(operation)));
    return arbitrary;
  };
}

export type RequestBuilder = ReturnType<typeof requestBuilder>;

export function requestBuilder(contract: Contract, apiKey: string, query: QueryKnowledge = NO_QUERY_KNOWLEDGE) {
  const authorization = `Bearer ${apiKey}`;
  const request = (
    operation: Operation,
    url: string,
    payload: string | Buffer | undefined,
    headers: Record<string, string> = {},
  ): ApiRequest => ({
    operationId: operation.operationId,
    method: operation.method.toUpperCase(),
    url,
    headers: {
      authorization,
      ...(payload === undefined ? {} : { 'content-type': bodySchemaOf(operation)?.mediaType ?? 'application/json' }),
      ...headers,
    },
    ...(payload === undefined ? {} : { payload }),
  });
  const basePath = basePathOf(contract.spec);
  const { resolve, validValue, brokenValue } = schemaArbitraries(contract.spec);

  /** A header parameter's pattern, as the validator applies it. */
  const patternOf = (parameter: Parameter) => new RegExp(resolve(parameter.schema).pattern!, 'u');

  /** Values a header parameter's schema accepts, drawn from its pattern. */
  const validHeaderValue = (parameter: Parameter): fc.Arbitrary<string> => matching(patternOf(parameter));

  function buildUrl(operation: Operation, path: Record<string, string>, query: [string, string][]): string {
    const filled = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(path[name]!));
    const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
    return `${basePath}${filled}${search === '' ? '' : `?${search}`}`;
  }

  const parameterValue = (parameter: Parameter) =>
    parameter.in === 'query' && query.atMinimum?.includes(parameter.name) === true
      ? fc.constant(resolve(parameter.schema).minimum ?? 0)
      : validValue(parameter.schema).filter((value) => typeof value !== 'string' || fitsUrl(value));

  return { request, buildUrl, patternOf, validHeaderValue, parameterValue, resolve, validValue, brokenValue, query };
}
