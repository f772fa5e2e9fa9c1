// Request arbitraries for every operation of an OpenAPI document, read from its parameters and
// request bodies, signed with the key they are given: valid requests, requests that break one rule
// (with the answer they must get), and requests without a valid key.
import fc from 'fast-check';
import { basePathOf, type Operation } from './openapi-document.js';
import type { Contract } from './document-contract.js';
import { matching, schemaArbitraries, toJson, type Breaking } from './schema-arbitraries.js';
import { binaryString } from './code-points.js';
import { badAuthorization, unauthorized } from './bad-keys.js';
import { bodyBreakings } from './body-breakings.js';
import {
  asText,
  asTextParts,
  bodySchemaOf,
  fitsUrl,
  generatedQuery,
  headerText,
  inHeader,
  inPath,
  inQuery,
  notDecimal,
  otherIssuedQuery,
  parametersOf,
  validation,
  WAIT,
  where,
  type ApiRequest,
  type BrokenRequest,
  type IssuedParameters,
  type Parameter,
  type ValidRequest,
} from './request-parts.js';
import { HEADER_PREFIX } from './spec-links.js';

export { badAuthorization, unauthorized } from './bad-keys.js';
export {
  bodySchemaOf,
  inHeader,
  parametersOf,
  type ApiRequest,
  type BrokenRequest,
  type Expectation,
  type IssuedParameter,
  type IssuedParameters,
  type Parameter,
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
  issuedBy: IssuedParameters = NONE_ISSUED,
): RequestGenerators {
  // Building a document's arbitraries (strings drawn from its patterns above all) costs more than
  // drawing a few hundred requests from them: a contract, cached by its document (contractOf), keeps
  // its generators, and they keep each operation's arbitraries.
  let byKey = generatorsOf.get(contract);
  if (byKey === undefined) generatorsOf.set(contract, (byKey = new WeakMap()));
  let byIssued = byKey.get(issuedBy);
  if (byIssued === undefined) byKey.set(issuedBy, (byIssued = new Map()));
  let generators = byIssued.get(apiKey);
  if (generators === undefined)
    byIssued.set(apiKey, (generators = createRequestGenerators(contract, apiKey, issuedBy)));
  return generators;
}
export type RequestGenerators = ReturnType<typeof createRequestGenerators>;
const NONE_ISSUED: IssuedParameters = {};
const generatorsOf = new WeakMap<Contract, WeakMap<IssuedParameters, Map<string, RequestGenerators>>>();

/** Memoizes an arbitrary per operation: arbitraries are immutable, so one serves every run. */
function perOperation<T>(make: (operation: Operation) => fc.Arbitrary<T>): (operation: Operation) => fc.Arbitrary<T> {
  const made = new WeakMap<Operation, fc.Arbitrary<T>>();
  return (operation) => {
    let arbitrary = made.get(operation);
    if (arbitrary === undefined) made.set(operation, (arbitrary = make(operation)));
    return arbitrary;
  };
}

function createRequestGenerators(contract: Contract, apiKey: string, issuedBy: IssuedParameters) {
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
  const { operations } = contract;
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
    parameter.name === WAIT && parameter.in === 'query'
      ? fc.constant(resolve(parameter.schema).minimum ?? 0)
      : validValue(parameter.schema).filter((value) => typeof value !== 'string' || fitsUrl(value));

  function validParts(operation: Operation) {
    const path = fc.record(
      Object.fromEntries(inPath(operation).map((parameter) => [parameter.name, parameterValue(parameter)])),
    );
    const query = fc.record(
      Object.fromEntries(generatedQuery(operation).map((parameter) => [parameter.name, parameterValue(parameter)])),
      {
        requiredKeys: generatedQuery(operation)
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
   * The same valid request with the values a link gave: path parameters (ids) and headers
   * (`header.if-match`, an answer's ETag); its URL rebuilt, all else kept.
   */
  function relinked(valid: ValidRequest, values: Record<string, unknown>): ValidRequest {
    const operation = operations.find((candidate) => candidate.operationId === valid.request.operationId)!;
    const headers = { ...valid.request.headers };
    const params = { ...valid.params };
    for (const [name, value] of Object.entries(values)) {
      if (name.startsWith(HEADER_PREFIX)) headers[name.slice(HEADER_PREFIX.length)] = String(value);
      else params[name] = value;
    }
    const text = asTextParts({ params, query: valid.query });
    return {
      ...valid,
      params,
      request: { ...valid.request, headers, url: buildUrl(operation, text.path, text.query) },
    };
  }

  function brokenParameterText(parameter: Parameter): fc.Arbitrary<{ text: string; rule: string }> | undefined {
    const schema = resolve(parameter.schema);
    if (schema.type === 'integer') {
      const outOfRange = brokenValue(schema).filter((broken) => typeof broken.value === 'bigint');
      return fc.oneof(
        notDecimal.map((text) => ({ text, rule: 'not a decimal integer' })),
        outOfRange.map((broken) => ({ text: String(broken.value), rule: broken.rule })),
      );
    }
    const allowed = schema.enum;
    if (allowed !== undefined) {
      return binaryString({ maxLength: 12 })
        .filter((text) => !allowed.includes(text))
        .map((text) => ({ text, rule: 'not in enum' }));
    }
    if (schema.type === 'string') {
      // As text, a string cannot be of the wrong JSON type: only its length and pattern can be broken.
      if ((schema.minLength ?? 0) === 0 && schema.maxLength === undefined && schema.pattern === undefined)
        return undefined;
      return brokenValue(schema)
        .filter(
          (broken): broken is Breaking & { value: string } => typeof broken.value === 'string' && fitsUrl(broken.value),
        )
        .map((broken) => ({ text: broken.value, rule: broken.rule }));
    }
    throw new Error(`${parameter.name}: only integer, enum and string parameters are generated`);
  }

  /** Requests of one operation that break exactly one rule, with the answer each must get. */
  const brokenRequest = perOperation(function brokenRequest(operation: Operation): fc.Arbitrary<BrokenRequest> {
    const declared = new Set(inQuery(operation).map((parameter) => parameter.name));
    const bodySchema = bodySchemaOf(operation);
    const parts = validRequest(operation);
    const breakings: fc.Arbitrary<BrokenRequest>[] = [];
    const textOf = (valid: ValidRequest) => ({ ...asTextParts(valid), payload: valid.request.payload });

    for (const parameter of [
      ...inPath(operation),
      ...generatedQuery(operation),
      ...otherIssuedQuery(operation, issuedBy),
    ]) {
      const brokenText = brokenParameterText(parameter);
      // A string parameter that allows any text has nothing to break.
      if (brokenText === undefined) continue;
      breakings.push(
        fc.tuple(parts, brokenText).map(([valid, { text, rule }]) => {
          const { path, query, payload } = textOf(valid);
          if (parameter.in === 'path') path[parameter.name] = text;
          const otherQuery = query.filter(([name]) => name !== parameter.name);
          const brokenQuery: [string, string][] =
            parameter.in === 'query' ? [...otherQuery, [parameter.name, text]] : query;
          return {
            request: request(operation, buildUrl(operation, path, brokenQuery), payload),
            rule: `${where(parameter)} ${rule}`,
            expect: validation(where(parameter)),
          };
        }),
      );
    }
    for (const parameter of inHeader(operation)) {
      const pattern = patternOf(parameter);
      const name = parameter.name.toLowerCase();
      breakings.push(
        fc
          .tuple(
            parts,
            headerText.filter((text) => !pattern.test(text)),
          )
          .map(([valid, text]) => ({
            request: { ...valid.request, headers: { ...valid.request.headers, [name]: text } },
            rule: `header ${parameter.name} outside its schema`,
            expect: validation(`header ${name}`),
          })),
      );
    }
    for (const parameter of inQuery(operation)) {
      const issued = issuedBy[parameter.name];
      if (issued === undefined) continue;
      for (const broken of issued.broken(operation, parts)) {
        breakings.push(
          broken.map(({ valid, text, rule, mentions }) => {
            const { path, query } = asTextParts(valid);
            const url = buildUrl(operation, path, [...query, [parameter.name, text]]);
            return {
              request: request(operation, url, valid.request.payload),
              rule: `${parameter.name} ${rule}`,
              expect: validation(mentions),
            };
          }),
        );
      }
    }
    for (const parameter of inQuery(operation)) {
      const value = issuedBy[parameter.name]?.issued(operation) ?? parameterValue(parameter);
      breakings.push(
        fc.tuple(parts, value, value).map(([valid, first, second]) => {
          const { path, query, payload } = textOf(valid);
          const repeated: [string, string][] = [
            ...query.filter(([name]) => name !== parameter.name),
            [parameter.name, asText(first)],
            [parameter.name, asText(second)],
          ];
          return {
            request: request(operation, buildUrl(operation, path, repeated), payload),
            rule: `${where(parameter)} repeated`,
            expect: validation(`${where(parameter)} must be given at most once`),
          };
        }),
      );
    }
    const unknownName = fc
      .oneof(binaryString({ minLength: 1, maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'id', 'offset'))
      .filter((name) => !declared.has(name));
    breakings.push(
      fc.tuple(parts, unknownName, binaryString({ maxLength: 5 })).map(([valid, name, value]) => {
        const { path, query, payload } = textOf(valid);
        return {
          request: request(operation, buildUrl(operation, path, [...query, [name, value]]), payload),
          rule: `unknown query parameter ${name}`,
          expect: validation(`unknown query parameter '${name}'`),
        };
      }),
    );

    if (bodySchema === undefined) {
      breakings.push(
        fc.tuple(parts, fc.jsonValue({ maxDepth: 2 })).map(([valid, body]) => ({
          request: request(operation, valid.request.url, JSON.stringify(body)),
          rule: 'body sent to an operation that takes none',
          expect: { status: 400, code: 'BODY_NOT_ALLOWED', mentions: 'takes no body' },
        })),
      );
    } else {
      breakings.push(
        ...bodyBreakings(operation, bodySchema.schema, bodySchema.required, parts, { request, brokenValue }),
      );
    }
    return fc.oneof(...breakings);
  });

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
