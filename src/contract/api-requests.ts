// Request arbitraries for every operation of an OpenAPI document, read from its parameters and
// request bodies, signed with the key they are given: valid requests, requests that break one rule
// (with the answer they must get), and requests without a valid key.
import fc from 'fast-check';
import { basePathOf, type Operation } from '../openapi/openapi-spec.js';
import type { Contract } from './document-contract.js';
import { matching, schemaArbitraries, toJson, type Breaking, type Schema } from './schema-arbitraries.js';
import type { ApiRequest } from './api-request.js';
import { badAuthorization, unauthorized } from './bad-keys.js';
import { binaryString } from './code-points.js';
import { encodeCursor } from '../pagination/cursor.js';
import type { PetStatus } from '../types/api.js';
import { INT64_MAX, exactInteger } from '../validation/int64.js';
import { HEADER_PREFIX } from './spec-links.js';

export { badAuthorization, unauthorized } from './bad-keys.js';

export type { ApiRequest } from './api-request.js';

/** A valid request and the values it carries, for checking the meaning of the answer. */
export interface ValidRequest {
  request: ApiRequest;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
}

/** What a request that breaks one rule must get. */
export interface Expectation {
  status: number;
  code: string;
  /** Text the Error message must contain: the part of the request to fix. */
  mentions: string;
}

export interface BrokenRequest {
  request: ApiRequest;
  rule: string;
  expect: Expectation;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

// A JSON body of another name (application/merge-patch+json) is generated as JSON all the same.
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/;

/**
 * listPets' page cursor. A valid one exists only in an answer's `next` link, so generated valid
 * requests never carry one (the model-based property follows the links); broken ones do.
 */
export const CURSOR = 'cursor';
/**
 * Query parameters a valid value of which only the service gives, in a `next` link (listPets'
 * `cursor`, listPetEvents' `after`): generated valid requests leave them out, broken ones carry
 * them. And `wait`, which holds an answer: valid requests send its minimum, so none waits.
 */
const ISSUED_BY_LINKS = new Set([CURSOR, 'after']);
const WAIT = 'wait';

export const parametersOf = (operation: Operation) =>
  (operation.object as { parameters?: Parameter[] }).parameters ?? [];
const inQuery = (operation: Operation) => parametersOf(operation).filter((parameter) => parameter.in === 'query');
/** The query parameters a valid request is generated with. */
const generatedQuery = (operation: Operation) =>
  inQuery(operation).filter((parameter) => !ISSUED_BY_LINKS.has(parameter.name));
/**
 * The query parameters issued by links other than listPets' cursor (which has checks of its own): broken by their
 * schema alone.
 */
const otherIssuedQuery = (operation: Operation) =>
  inQuery(operation).filter((parameter) => parameter.name !== CURSOR && ISSUED_BY_LINKS.has(parameter.name));
const inPath = (operation: Operation) => parametersOf(operation).filter((parameter) => parameter.in === 'path');

export function bodySchemaOf(
  operation: Operation,
): { schema: Schema; required: boolean; mediaType: string } | undefined {
  const body = operation.object.requestBody as
    { required?: boolean; content: Record<string, { schema: Schema }> } | undefined;
  if (body === undefined) return undefined;
  const mediaTypes = Object.keys(body.content);
  const [mediaType] = mediaTypes;
  if (mediaTypes.length !== 1 || !JSON_MEDIA_TYPE.test(mediaType!))
    throw new Error(`${operation.operationId}: only bodies of one JSON media type are generated`);
  return { schema: body.content[mediaType!]!.schema, required: body.required === true, mediaType: mediaType! };
}

/**
 * Header parameters: optional ones (Idempotency-Key) change what a request means, so valid requests
 * leave them out and the model-based property sends them in commands of their own; broken values
 * are generated here like any other broken part.
 */
export const inHeader = (operation: Operation) =>
  parametersOf(operation).filter((parameter) => parameter.in === 'header');

// Header values as HTTP carries them: visible ASCII and inner spaces (a leading or trailing space
// would be trimmed on the way, changing the value).
const headerText = fc
  .oneof(
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 }),
    fc.constantFrom('', '""', '"a\\"b"', 'a b', 'a,b', '"a", "b"', '"a";p=1', `"${'k'.repeat(256)}"`, 'k'.repeat(256)),
  )
  .filter((text) => text.trim() === text);

// Parameters travel as text: integers in plain decimal, strings as they are.
const asText = (value: unknown) => String(value);

function asTextParts({ params, query }: { params: Record<string, unknown>; query: Record<string, unknown> }) {
  return {
    path: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, asText(value)])),
    query: Object.entries(query).map(([name, value]): [string, string] => [name, asText(value)]),
  };
}

// A parameter travels in the URL, percent-encoded as UTF-8: a lone surrogate has no encoding.
const fitsUrl = (text: string) => !/\p{Cs}/u.test(text);

const validation = (mentions: string): Expectation => ({ status: 400, code: 'VALIDATION_FAILED', mentions });
const where = (parameter: Parameter) =>
  `${parameter.in === 'query' ? 'query parameter' : 'path parameter'} ${parameter.name}`;

// Text that is not a plain decimal integer; decimals with leading zeros ("007") are valid numbers.
const notDecimal = fc
  .oneof(
    fc.constantFrom(
      '',
      'abc',
      '1.5',
      '1e1',
      '+1',
      ' 1',
      '1 ',
      '0x10',
      '١',
      'NaN',
      '--1',
      '1_000',
      'true',
      'null',
      '[1]',
    ),
    binaryString({ maxLength: 8 }),
  )
  .filter((text) => !/^-?\d+$/.test(text));

/**
 * The request arbitraries of one document: valid requests, requests that break one rule, and
 * requests without a valid key, for each of its operations, signed with `apiKey`. npm run compat
 * draws them from a released version's document; everything else from openapi.yaml's.
 */
export function requestGenerators(contract: Contract, apiKey: string): RequestGenerators {
  // Building a document's arbitraries (strings drawn from its patterns above all) costs more than
  // drawing a few hundred requests from them: a contract, cached by its document (contractOf), keeps
  // its generators, and they keep each operation's arbitraries.
  let byKey = generatorsOf.get(contract);
  if (byKey === undefined) generatorsOf.set(contract, (byKey = new Map()));
  let generators = byKey.get(apiKey);
  if (generators === undefined) byKey.set(apiKey, (generators = createRequestGenerators(contract, apiKey)));
  return generators;
}
export type RequestGenerators = ReturnType<typeof createRequestGenerators>;
const generatorsOf = new WeakMap<Contract, Map<string, RequestGenerators>>();

/** Memoizes an arbitrary per operation: arbitraries are immutable, so one serves every run. */
function perOperation<T>(make: (operation: Operation) => fc.Arbitrary<T>): (operation: Operation) => fc.Arbitrary<T> {
  const made = new WeakMap<Operation, fc.Arbitrary<T>>();
  return (operation) => {
    let arbitrary = made.get(operation);
    if (arbitrary === undefined) made.set(operation, (arbitrary = make(operation)));
    return arbitrary;
  };
}

function createRequestGenerators(contract: Contract, apiKey: string) {
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

    for (const parameter of [...inPath(operation), ...generatedQuery(operation), ...otherIssuedQuery(operation)]) {
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
    const cursor = inQuery(operation).find((parameter) => parameter.name === CURSOR);
    if (cursor !== undefined) breakings.push(...brokenCursors(operation, cursor, parts));
    for (const parameter of inQuery(operation)) {
      const value = parameter === cursor ? issuedCursor(operation) : parameterValue(parameter);
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
      breakings.push(...bodyBreakings(operation, bodySchema.schema, bodySchema.required, parts));
    }
    return fc.oneof(...breakings);
  });

  // A cursor as the service issues them (for any position and filter), as a client finds it in a link.
  const statusesOf = (operation: Operation) => {
    const status = inQuery(operation).find((parameter) => parameter.name === 'status');
    return (status === undefined ? [] : (resolve(status.schema).enum ?? [])) as PetStatus[];
  };
  const issuedCursor = (operation: Operation) =>
    fc
      .tuple(fc.bigInt({ min: 1n, max: INT64_MAX }), fc.constantFrom(undefined, ...statusesOf(operation)))
      .map(([after, status]) => encodeCursor({ after: exactInteger(String(after)), status }));

  /** Cursors that break the parameter's schema, that the service never issued, or that belong to another filter. */
  function brokenCursors(
    operation: Operation,
    cursor: Parameter,
    parts: fc.Arbitrary<ValidRequest>,
  ): fc.Arbitrary<BrokenRequest>[] {
    const schema = resolve(cursor.schema);
    const base64url = /^[A-Za-z0-9_-]*$/;
    const send = (valid: ValidRequest, text: string, rule: string, mentions: string): BrokenRequest => {
      const { path, query } = asTextParts(valid);
      const url = buildUrl(operation, path, [...query, [CURSOR, text]]);
      return {
        request: request(operation, url, valid.request.payload),
        rule: `cursor ${rule}`,
        expect: validation(mentions),
      };
    };
    const notIssued = fc
      .stringMatching(/^[A-Za-z0-9_-]+$/)
      .filter(
        (text) =>
          text.length <= schema.maxLength! && !Buffer.from(text, 'base64url').toString('latin1').startsWith('v1:'),
      );
    return [
      fc
        .tuple(
          parts,
          fc.oneof(
            fc.constant(''),
            binaryString({ minLength: 1, maxLength: 20 }).filter((text) => !base64url.test(text)),
            fc
              .stringMatching(/^[A-Za-z0-9_-]+$/, { size: 'large' })
              .map((text) => text.padEnd(schema.maxLength! + 1, 'A')),
          ),
        )
        .map(([valid, text]) => send(valid, text, 'outside its schema', 'query parameter cursor')),
      fc
        .tuple(parts, notIssued)
        .map(([valid, text]) =>
          send(valid, text, 'not issued by the service', 'query parameter cursor is not a cursor this service issued'),
        ),
      fc
        .tuple(parts, fc.bigInt({ min: 1n, max: INT64_MAX }), fc.constantFrom(undefined, ...statusesOf(operation)))
        .filter(([valid, , status]) => valid.query['status'] !== status)
        .map(([valid, after, status]) =>
          send(
            valid,
            encodeCursor({ after: exactInteger(String(after)), status }),
            'of another filter',
            'query parameter cursor belongs to',
          ),
        ),
    ];
  }

  function bodyBreakings(
    operation: Operation,
    schema: Schema,
    required: boolean,
    parts: fc.Arbitrary<ValidRequest>,
  ): fc.Arbitrary<BrokenRequest>[] {
    const send = (valid: ValidRequest, payload: string | Buffer | undefined, headers: Record<string, string> = {}) =>
      request(operation, valid.request.url, payload, headers);
    const validText = (valid: ValidRequest) => String(valid.request.payload);
    const breakings: fc.Arbitrary<BrokenRequest>[] = [
      fc.tuple(parts, brokenValue(schema)).map(([valid, broken]) => {
        const field = ['body', ...broken.path].join('.');
        const mentions =
          broken.unknownField !== undefined
            ? `unknown field '${broken.unknownField}'`
            : broken.missingField !== undefined
              ? `${field}.${broken.missingField} is required`
              : field;
        return {
          request: send(valid, toJson(broken.value)),
          rule: `body ${broken.rule} at ${field}`,
          expect: validation(mentions),
        };
      }),
      fc.tuple(parts, fc.nat(), fc.constantFrom('', '}', ',', 'x', ']', '{}', '"')).map(([valid, cut, tail]) => {
        // A strict prefix of an object's JSON text never closes the object, so it is never JSON.
        const text = validText(valid);
        const malformed = tail === '' ? text.slice(0, 1 + (cut % (text.length - 1))) : text + tail;
        return {
          request: send(valid, malformed),
          rule: 'malformed JSON',
          expect: { status: 400, code: 'INVALID_JSON', mentions: 'not valid JSON' },
        };
      }),
      parts
        .filter((valid) => Object.keys(valid.body as object).length > 0)
        .map((valid) => {
          const body = valid.body as Record<string, unknown>;
          const [name] = Object.keys(body);
          const repeated = `{${JSON.stringify(name)}:${toJson(body[name!])},${validText(valid).slice(1)}`;
          return {
            request: send(valid, repeated),
            rule: 'repeated JSON key',
            expect: { status: 400, code: 'INVALID_JSON', mentions: 'not valid JSON' },
          };
        }),
      fc.tuple(parts, fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([valid, bytes]) => ({
        request: send(
          valid,
          Buffer.concat([
            Buffer.from(validText(valid).slice(0, -1)),
            Buffer.from([0xff]),
            Buffer.from(bytes),
            Buffer.from('}'),
          ]),
        ),
        rule: 'bytes that are not UTF-8',
        expect: { status: 400, code: 'INVALID_JSON', mentions: 'UTF-8' },
      })),
      fc
        .tuple(
          parts,
          fc
            .oneof(
              fc.constantFrom(
                'text/plain',
                'application/xml',
                'application/x-www-form-urlencoded',
                'multipart/form-data',
                'application/json-patch+json',
                'application/json',
                'application/merge-patch+json',
                `${bodySchemaOf(operation)!.mediaType}; charset=latin1`,
                `${bodySchemaOf(operation)!.mediaType}; charset=utf-16`,
              ),
              matching(/^[a-z]{1,10}\/[a-z+.-]{1,12}$/),
            )
            .filter((type) => type !== bodySchemaOf(operation)!.mediaType),
        )
        .map(([valid, type]) => ({
          request: send(valid, validText(valid), { 'content-type': type }),
          rule: `Content-Type ${type}`,
          expect: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', mentions: 'Content-Type' },
        })),
    ];
    if (required) {
      breakings.push(
        parts.map((valid) => ({
          request: send(valid, undefined),
          rule: 'no body',
          expect: { status: 400, code: 'BODY_REQUIRED', mentions: 'body' },
        })),
      );
    }
    return breakings;
  }

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
