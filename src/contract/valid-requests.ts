// Valid requests for each operation, from its parameters and body schema, and the same request
// with the values a link gave.
import fc from 'fast-check';
import type { Contract } from './document-contract.js';
import type { Operation } from './openapi-document.js';
import { perOperation, type RequestBuilder } from './request-builder.js';
import { asTextParts, bodySchemaOf, generatedQuery, inPath, parametersOf, type ValidRequest } from './request-parts.js';
import { toJson } from './schema-arbitraries.js';
import { BODY_PREFIX, HEADER_PREFIX } from './spec-links.js';

export function validRequests(contract: Contract, builder: RequestBuilder) {
  const { operations } = contract;
  const { request, buildUrl, parameterValue, validValue, query: knowledge } = builder;
  function validParts(operation: Operation) {
    const path = fc.record(
      Object.fromEntries(inPath(operation).map((parameter) => [parameter.name, parameterValue(parameter)])),
    );
    const query = fc.record(
      Object.fromEntries(
        generatedQuery(operation, knowledge).map((parameter) => [parameter.name, parameterValue(parameter)]),
      ),
      {
        requiredKeys: generatedQuery(operation, knowledge)
          .filter((parameter) => parameter.required === true)
          .map((parameter) => parameter.name),
      },
    );
    const bodySchema = bodySchemaOf(operation);
    const body = bodySchema === undefined ? fc.constant(undefined) : validValue(bodySchema.schema);
    return fc.record({ params: path, query, body });
  }

  /**
   * Valid requests for one operation: every optional part present or absent, values at their bounds.
   * Throws, naming the operation, when its requests need something not generated here.
   */
  const validRequest = perOperation(function validRequest(operation: Operation): fc.Arbitrary<ValidRequest> {
    const other = parametersOf(operation).filter(
      (parameter) => parameter.in === 'cookie' || (parameter.in === 'header' && parameter.required === true),
    );
    if (other.length > 0)
      throw new Error(
        `${operation.operationId}: ${other[0]!.in === 'cookie' ? 'cookie' : 'required header'} parameters are not generated`,
      );
    try {
      return validParts(operation).map(({ params, query, body }) => {
        const text = asTextParts({ params, query });
        const url = buildUrl(operation, text.path, text.query);
        return { request: request(operation, url, body === undefined ? undefined : toJson(body)), params, query, body };
      });
    } catch (error) {
      throw new Error(`${operation.operationId}: ${(error as Error).message}`);
    }
  });

  /**
   * The same valid request with the values a link gave: path parameters (ids), headers
   * (`header.if-match`, a response's ETag) and body members (`body.petId`); its URL and payload
   * rebuilt, all else kept.
   */
  function relinked(valid: ValidRequest, values: Record<string, unknown>): ValidRequest {
    const operation = operations.find((candidate) => candidate.operationId === valid.request.operationId)!;
    const headers = { ...valid.request.headers };
    const params = { ...valid.params };
    let body = valid.body;
    for (const [name, value] of Object.entries(values)) {
      if (name.startsWith(HEADER_PREFIX)) headers[name.slice(HEADER_PREFIX.length)] = String(value);
      else if (name.startsWith(BODY_PREFIX)) body = { ...(body as object), [name.slice(BODY_PREFIX.length)]: value };
      else params[name] = value;
    }
    const text = asTextParts({ params, query: valid.query });
    const request = { ...valid.request, headers, url: buildUrl(operation, text.path, text.query) };
    if (body !== valid.body) request.payload = toJson(body);
    return { ...valid, params, body, request };
  }

  return { validRequest, relinked };
}
