// A write responds with what it wrote: when a request of an unsafe method sends a JSON object and
// its 2xx response is an object whose schema has a field of the same name, the response holds the value
// sent (a create's new resource, an update's changed one). A handler that ignores its body fails here.
import { isDeepStrictEqual } from 'node:util';
import { ContractViolation, describe, normalized } from './response-checks.js';
import { bodySchemaOf, type ValidRequest } from './api-requests.js';
import type { Contract, HttpResponse } from './document-contract.js';
import { resolveRef, SAFE_METHODS } from './openapi-document.js';
import type { Schema } from './schema-arbitraries.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function writtenCheck(contract: Contract) {
  const responseFieldsOf = (operationId: string, status: number): Set<string> => {
    const response = resolveRef(contract.spec, contract.operation(operationId).object.responses[String(status)]) as {
      content?: Record<string, { schema: Schema }>;
    };
    const schema = response.content?.['application/json']?.schema;
    return new Set(schema === undefined ? [] : Object.keys(resolveRef(contract.spec, schema).properties ?? {}));
  };
  return ({ request, body }: ValidRequest, response: HttpResponse & { json: unknown }) => {
    const operation = contract.operation(request.operationId);
    if (SAFE_METHODS.has(operation.method) || !isObject(body) || !isObject(response.json)) return;
    const json = response.json;
    const fields = responseFieldsOf(request.operationId, response.statusCode);
    // In a JSON Merge Patch (RFC 7396), null removes the member: the response must not hold it.
    const mergePatch = bodySchemaOf(operation)?.mediaType === 'application/merge-patch+json';
    const written = (name: string) => (mergePatch && body[name] === null ? undefined : body[name]);
    const differing = Object.keys(body).filter(
      (name) => fields.has(name) && !isDeepStrictEqual(normalized(json[name]), normalized(written(name))),
    );
    if (differing.length > 0) {
      throw new ContractViolation(
        request,
        `${describe(request)} → ${response.statusCode} ${response.body}\n  the response does not hold what was written: ${differing.join(', ')}`,
      );
    }
  };
}
