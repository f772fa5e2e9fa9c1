// The parts of a generated request: its types, the parameters an operation declares and where
// they travel, and the text forms that a URL and headers carry.
import fc from 'fast-check';
import { binaryString } from './code-points.js';
import type { Operation } from './openapi-document.js';
import type { Schema } from './schema-arbitraries.js';

export interface ApiRequest {
  operationId: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** A valid request and the values it carries, for checking the meaning of the response. */
export interface ValidRequest {
  request: ApiRequest;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
}

/** The rejections the engine provokes, in its own words; an API's vocabulary names their codes. */
export type RejectionKind =
  | 'validation'
  | 'invalidJson'
  | 'notUtf8'
  | 'unsupportedMediaType'
  | 'bodyRequired'
  | 'bodyNotAllowed'
  | 'unauthorized'
  | 'insufficientScope'
  | 'preconditionRequired'
  | 'preconditionFailed'
  | 'routeNotFound';

/**
 * How an API words each rejection: its error code, and a text its message always holds. What a
 * document cannot say, so a plug-in's (`ContractPlugin.errors`). Without an entry for a kind, a
 * rejection of that kind is held to its status and its document alone.
 */
export type ErrorVocabulary = Readonly<Partial<Record<RejectionKind, { code: string; says?: string }>>>;
export const NO_VOCABULARY: ErrorVocabulary = {};

/**
 * What a request that breaks one rule must get: a status, and either a rejection `kind` (the
 * engine's requests, worded by the API's vocabulary) or an API's own `code` (a plug-in's checks).
 */
export interface Expectation {
  status: number;
  kind?: RejectionKind;
  code?: string;
  /** Text the Error message must contain: the part of the request to fix. */
  mentions?: string;
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
export const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/;

/**
 * A query parameter whose valid values only the service gives (in a next link), as a plug-in that
 * knows the service's format describes it: valid values, and broken ones with what their rejection
 * must mention. Without one, such a parameter is broken by its schema alone.
 */
export interface OpaqueParameter {
  /** Values the service could have given. */
  valid(operation: Operation): fc.Arbitrary<string>;
  broken(
    operation: Operation,
    parts: fc.Arbitrary<ValidRequest>,
  ): fc.Arbitrary<{ valid: ValidRequest; text: string; rule: string; mentions: string }>[];
}

/** Opaque parameters by name, from the plug-in that knows them. */
export type OpaqueParameters = Readonly<Record<string, OpaqueParameter>>;

/**
 * What a plug-in knows of its API's query parameters that a document cannot say. Without it, every
 * query parameter is generated from its schema.
 */
export interface QueryKnowledge {
  /** Parameters whose valid values only the service gives, described: valid ones drawn, broken ones made. */
  opaque?: OpaqueParameters;
  /**
   * Parameters only links fill (a page cursor): valid requests leave them out (a run follows the
   * links), broken ones carry them, as `opaque` describes them or else broken by their schema.
   */
  givenByLinks?: readonly string[];
  /** Parameters a valid request sends at their schema's minimum (a long poll's wait), so that none waits. */
  atMinimum?: readonly string[];
}
export const NO_QUERY_KNOWLEDGE: QueryKnowledge = {};

export const parametersOf = (operation: Operation) =>
  (operation.object as { parameters?: Parameter[] }).parameters ?? [];
export const inQuery = (operation: Operation) =>
  parametersOf(operation).filter((parameter) => parameter.in === 'query');
const givenByLinks = (query: QueryKnowledge, name: string) =>
  query.opaque?.[name] !== undefined || query.givenByLinks?.includes(name) === true;
/** The query parameters a valid request is generated with. */
export const generatedQuery = (operation: Operation, query: QueryKnowledge) =>
  inQuery(operation).filter((parameter) => !givenByLinks(query, parameter.name));
/** The query parameters given by links that the plug-in does not describe: broken by their schema alone. */
export const otherLinkQuery = (operation: Operation, query: QueryKnowledge) =>
  inQuery(operation).filter(
    (parameter) => query.opaque?.[parameter.name] === undefined && givenByLinks(query, parameter.name),
  );
export const inPath = (operation: Operation) => parametersOf(operation).filter((parameter) => parameter.in === 'path');

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
export const headerText = fc
  .oneof(
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 }),
    fc.constantFrom('', '""', '"a\\"b"', 'a b', 'a,b', '"a", "b"', '"a";p=1', `"${'k'.repeat(256)}"`, 'k'.repeat(256)),
  )
  .filter((text) => text.trim() === text);

// Parameters travel as text: integers in plain decimal, strings as they are.
export const asText = (value: unknown) => String(value);

export function asTextParts({ params, query }: { params: Record<string, unknown>; query: Record<string, unknown> }) {
  return {
    path: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, asText(value)])),
    query: Object.entries(query).map(([name, value]): [string, string] => [name, asText(value)]),
  };
}

// A parameter travels in the URL, percent-encoded as UTF-8: a lone surrogate has no encoding.
export const fitsUrl = (text: string) => !/\p{Cs}/u.test(text);

export const validation = (mentions: string): Expectation => ({ status: 400, kind: 'validation', mentions });
export const where = (parameter: Parameter) =>
  `${parameter.in === 'query' ? 'query parameter' : 'path parameter'} ${parameter.name}`;

// Text that is not a plain decimal integer; decimals with leading zeros ("007") are valid numbers.
export const notDecimal = fc
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
