// generated/client-api.ts: the typed client's view of openapi.yaml (src/client/ is its runtime).
// - The spec's types, with every int64 as bigint: what the client returns is exact.
// - One entry per operation of what the wire needs: method, path, parameters, whether a retry is
//   safe, whether responses come in pages, its deprecation, and where responds hold plain numbers.
// - One method per operation, typed and documented from the spec (deprecated ones @deprecated,
//   naming the sunset and the replacement), bound to the runtime's send or paginate.
// A new operation in the spec is a new method here, with no hand-written code.
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';
import {
  loadSpec,
  operationsOf,
  resolveRef,
  type OpenApiDocument,
  type Operation,
} from '../../src/openapi/openapi-spec.js';
import type { NumberPlaces } from 'petstore-client';
import { lifecycleOf, type Lifecycle } from '../../src/openapi/lifecycle.js';
import type { GeneratedFile } from './generated-file.js';

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

type Node = Record<string, unknown>;

/** Follows `$ref`s within the document until a node that is not one. */
const resolve = (spec: OpenApiDocument, node: unknown): Node => resolveRef(spec, node as Node);

/** Where a JSON value of `schema` holds numbers that are not int64 (see NumberPlaces). */
function numberPlaces(spec: OpenApiDocument, node: unknown, depth = 0): NumberPlaces {
  if (depth > 32) throw new Error('client generation: schemas nest deeper than 32 levels (a recursive schema?)');
  const schema = resolve(spec, node);
  const types = ([] as unknown[]).concat(schema['type'] ?? []);
  for (const keyword of ['oneOf', 'anyOf', 'not', 'additionalProperties', 'patternProperties', 'prefixItems']) {
    if (schema[keyword] !== undefined && containsNumbers(spec, keyword, schema[keyword], depth)) {
      throw new Error(
        `client generation: a number under ${keyword} is beyond what the client converts; declare it as a property`,
      );
    }
  }
  if ((types.includes('integer') && schema['format'] !== 'int64') || types.includes('number')) return 'n';
  const properties: Record<string, NumberPlaces> = {};
  const parts = [schema, ...((schema['allOf'] as unknown[] | undefined) ?? []).map((part) => resolve(spec, part))];
  for (const part of parts) {
    for (const [name, property] of Object.entries((part['properties'] as Node | undefined) ?? {})) {
      const places = numberPlaces(spec, property, depth + 1);
      if (places !== null) properties[name] = places;
    }
  }
  if (Object.keys(properties).length > 0) return { p: properties };
  if (schema['items'] !== undefined) {
    const items = numberPlaces(spec, schema['items'], depth + 1);
    return items === null ? null : { i: items };
  }
  return null;
}

function containsNumbers(spec: OpenApiDocument, keyword: string, value: unknown, depth: number): boolean {
  const schemas = Array.isArray(value)
    ? value
    : keyword === 'patternProperties'
      ? Object.values(value as Node)
      : [value];
  return schemas.some(
    (schema) => typeof schema === 'object' && schema !== null && numberPlaces(spec, schema, depth + 1) !== null,
  );
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

const JSON_MEDIA_TYPE = 'application/json';
// A JSON body of another name (application/merge-patch+json) is written as JSON all the same.
const JSON_BODY_TYPE = /^application\/(?:[\w.-]+\+)?json$/;
const IDEMPOTENCY_KEY = 'idempotency-key';
// HTTP's idempotent methods (RFC 9110, 9.2.2): a retry of these is safe without a key.
const IDEMPOTENT_METHODS = new Set(['get', 'head', 'options', 'put', 'delete', 'trace']);

interface OperationFacts {
  operation: Operation;
  pathParameters: string[];
  queryParameters: string[];
  requiredQuery: boolean;
  body: { required: boolean; name: string; mediaType: string } | undefined;
  /** Header parameters other than Idempotency-Key, by name, with the option that carries each. */
  headerOptions: { name: string; specName: string; option: string; required: boolean }[];
  /** Documented 2xx statuses, and whether the first one has a JSON body. */
  success: { statuses: number[]; json: boolean };
  idempotencyKey: boolean;
  paginated: boolean;
  deprecation: Lifecycle['deprecation'];
  numbers: Record<string, NumberPlaces>;
}

function factsOf(spec: OpenApiDocument, operation: Operation): OperationFacts {
  const item = spec.paths[operation.path] as Node;
  const object = operation.object as unknown as Node;
  const parameters = [
    ...((item['parameters'] as unknown[] | undefined) ?? []),
    ...((object['parameters'] as unknown[] | undefined) ?? []),
  ].map((parameter) => resolve(spec, parameter) as unknown as Parameter);
  const named = (where: string) => parameters.filter((parameter) => parameter.in === where);
  const responses = Object.entries(operation.object.responses).map(
    ([status, response]) => [status, resolve(spec, response)] as const,
  );
  const statuses = responses.map(([status]) => Number(status)).filter((status) => status >= 200 && status < 300);
  if (statuses.length === 0) throw new Error(`client generation: ${operation.operationId} documents no 2xx answer`);
  const first = responses.find(([status]) => Number(status) === statuses[0])![1];
  const jsonOf = (response: Node) =>
    ((response['content'] as Node | undefined)?.[JSON_MEDIA_TYPE] as Node | undefined)?.['schema'];
  const successSchema = jsonOf(first);
  const requestBody = object['requestBody'] === undefined ? undefined : resolve(spec, object['requestBody']);
  const mediaTypes = Object.keys((requestBody?.['content'] as Node | undefined) ?? {});
  const mediaType = mediaTypes.length === 1 && JSON_BODY_TYPE.test(mediaTypes[0]!) ? mediaTypes[0]! : undefined;
  const bodySchema =
    mediaType === undefined
      ? undefined
      : ((requestBody!['content'] as Node)[mediaType] as Node | undefined)?.['schema'];
  if (requestBody !== undefined && bodySchema === undefined)
    throw new Error(`client generation: ${operation.operationId} takes a body that is not JSON of one media type`);
  const bodyRef = (bodySchema as Node | undefined)?.['$ref'];
  const bodyName = typeof bodyRef === 'string' ? bodyRef.slice(bodyRef.lastIndexOf('/') + 1) : 'body';
  const headers = Object.keys((first['headers'] as Node | undefined) ?? {}).map((name) => name.toLowerCase());
  const numbers: Record<string, NumberPlaces> = {};
  for (const [status, response] of responses) {
    const schema = jsonOf(response);
    if (schema !== undefined) numbers[status] = numberPlaces(spec, schema);
  }
  return {
    operation,
    pathParameters: named('path').map((parameter) => parameter.name),
    queryParameters: named('query').map((parameter) => parameter.name),
    requiredQuery: named('query').some((parameter) => parameter.required === true),
    body:
      requestBody === undefined
        ? undefined
        : {
            required: requestBody['required'] === true,
            name: bodyName.charAt(0).toLowerCase() + bodyName.slice(1),
            mediaType: mediaType!,
          },
    headerOptions: named('header')
      .filter((parameter) => parameter.name.toLowerCase() !== IDEMPOTENCY_KEY)
      .map((parameter) => ({
        name: parameter.name.toLowerCase(),
        specName: parameter.name,
        option: variable(parameter.name.charAt(0).toLowerCase() + parameter.name.slice(1)),
        required: parameter.required === true,
      })),
    success: { statuses, json: successSchema !== undefined },
    idempotencyKey: named('header').some((parameter) => parameter.name.toLowerCase() === IDEMPOTENCY_KEY),
    // A list whose response links to the next page (RFC 8288) is read page by page.
    paginated:
      successSchema !== undefined && resolve(spec, successSchema)['type'] === 'array' && headers.includes('link'),
    deprecation: lifecycleOf(operation, operationsOf(spec)).deprecation,
    numbers,
  };
}

const quote = (value: unknown) => JSON.stringify(value);
const identifier = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name));
/** A parameter's name as a TypeScript variable: `pet-id` becomes `petId`. */
const variable = (name: string) =>
  name
    .replace(/[^A-Za-z0-9_$]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())
    .replace(/^(?=\d)/, '_');

function docComment(facts: OperationFacts): string {
  const object = facts.operation.object as unknown as Node;
  const lines = [
    `${String(object['summary'] ?? facts.operation.operationId)}: \`${facts.operation.method.toUpperCase()} ${facts.operation.path}\`.`,
  ];
  if (facts.paginated)
    lines.push('Iterate with `for await` over every item across pages, or call `.pages()` for one page at a time.');
  if (facts.idempotencyKey)
    lines.push('Sent with an `Idempotency-Key` (a new UUID unless given), reused by every retry.');
  const deprecation = facts.deprecation;
  if (deprecation !== undefined) {
    const replacement = deprecation.replacedBy;
    lines.push(
      `@deprecated since ${deprecation.at.text}` +
        `${deprecation.sunset === undefined ? '' : `; removed on ${deprecation.sunset.text} (its sunset), after which it fails with 410 OPERATION_GONE`}` +
        `${replacement === undefined ? '' : `. Use ${replacement.operationId} (\`${replacement.method.toUpperCase()} ${replacement.path}\`) instead`}.`,
    );
  }
  return ['  /**', ...lines.map((line) => `   * ${line}`), '   */'].join('\n');
}

function methodOf(spec: OpenApiDocument, facts: OperationFacts): { signature: string; binding: string } {
  const id = facts.operation.operationId;
  const operation = `operations[${quote(id)}]`;
  const args: string[] = [];
  const names: string[] = [];
  for (const name of facts.pathParameters) {
    args.push(`${variable(name)}: Loose<${operation}['parameters']['path'][${quote(name)}]>`);
    names.push(variable(name));
  }
  if (facts.body !== undefined) {
    const type = `Loose<NonNullable<${operation}['requestBody']>['content'][${quote(facts.body.mediaType)}]>`;
    args.push(`${facts.body.name}${facts.body.required ? '' : '?'}: ${type}`);
    names.push(facts.body.name);
  }
  if (facts.queryParameters.length > 0) {
    args.push(`query${facts.requiredQuery ? '' : '?'}: Loose<NonNullable<${operation}['parameters']['query']>>`);
    names.push('query');
  }
  const base = facts.idempotencyKey ? 'KeyedCallOptions' : 'CallOptions';
  // Header parameters travel as options named after them (If-Match: ifMatch), typed from the spec.
  const headerOptions = facts.headerOptions.map(
    ({ specName, option, required }) =>
      `${option}${required ? '' : '?'}: NonNullable<${operation}['parameters']['header']>[${quote(specName)}]`,
  );
  args.push(`options?: ${headerOptions.length === 0 ? base : `${base} & { ${headerOptions.join('; ')} }`}`);
  names.push('options');
  const success = `${operation}['responses'][${facts.success.statuses[0]}]`;
  const body = facts.success.json
    ? `${success} extends { content: { ${quote(JSON_MEDIA_TYPE)}: infer B } } ? B : never`
    : 'void';
  const returns = facts.paginated ? `Paginated<ItemOf<${body}>>` : `Promise<${body}>`;
  const pathObject =
    facts.pathParameters.length === 0
      ? '{}'
      : `{ ${facts.pathParameters.map((name) => (identifier(name) === variable(name) ? name : `${identifier(name)}: ${variable(name)}`)).join(', ')} }`;
  const call = `call.${facts.paginated ? 'paginate' : 'send'}(OPERATIONS.${id}, { path: ${pathObject}${facts.body === undefined ? '' : `, body: ${facts.body.name}`}${facts.queryParameters.length > 0 ? ', query' : ''} }, options)`;
  return {
    signature: `${docComment(facts)}\n  ${id}(${args.join(', ')}): ${returns};`,
    binding: `    ${id}: (${names.join(', ')}) => ${call},`,
  };
}

export async function clientApi(specUrl: URL): Promise<GeneratedFile> {
  const spec = loadSpec(specUrl.pathname);
  const types = astToString(
    await openapiTS(specUrl, {
      transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined),
      // A member with a default is one a caller may leave out (NewOrder's holdSeconds): the
      // service applies the default, so it is optional in what a caller sends.
      defaultNonNullable: false,
    }),
  );
  const facts = operationsOf(spec).map((operation) => factsOf(spec, operation));
  const methods = facts.map((entry) => methodOf(spec, entry));
  const table = facts.map(
    (entry) =>
      `  ${entry.operation.operationId}: {\n` +
      `    operationId: ${quote(entry.operation.operationId)},\n` +
      `    method: ${quote(entry.operation.method.toUpperCase())},\n` +
      `    path: ${quote(entry.operation.path)},\n` +
      `    successStatuses: ${quote(entry.success.statuses)},\n` +
      `    retrySafe: ${IDEMPOTENT_METHODS.has(entry.operation.method) || entry.idempotencyKey},\n` +
      `    idempotencyKey: ${entry.idempotencyKey},\n` +
      `    mediaType: ${quote(entry.body?.mediaType ?? JSON_MEDIA_TYPE)},\n` +
      `    headerOptions: ${quote(Object.fromEntries(entry.headerOptions.map(({ name, option }) => [name, option])))},\n` +
      `    numbers: ${quote(entry.numbers)},\n` +
      `  },`,
  );
  const errorCodes = [...spec.components.schemas.Error.properties.code.enum];
  const text = [
    COMMENT_HEADER.trimEnd(),
    "// The typed client's view of openapi.yaml (scripts/generate/client-api.ts): int64 as bigint, each",
    "// operation's wire facts, and one method per operation. Its runtime is src/client/.",
    '',
    `import type { Call, CallOptions, ItemOf, KeyedCallOptions, Loose, OperationSpec, Paginated } from '../src/client/call-types.js';`,
    '',
    types.trimEnd(),
    '',
    '/** The version of openapi.yaml this client was generated from. */',
    `export const API_VERSION = ${quote(spec.info.version)};`,
    '',
    '/** Every `code` an Error answer may carry. */',
    `export const ERROR_CODES = ${quote(errorCodes)} as const;`,
    'export type ErrorCode = (typeof ERROR_CODES)[number];',
    '',
    'export const OPERATIONS = {',
    ...table,
    '} as const satisfies Record<string, OperationSpec>;',
    '',
    '/** One method per operation of openapi.yaml. */',
    'export interface PetstoreOperations {',
    methods.map((method) => method.signature).join('\n'),
    '}',
    '',
    'export function bindOperations(call: Call): PetstoreOperations {',
    '  return {',
    ...methods.map((method) => method.binding),
    '  };',
    '}',
    '',
  ].join('\n');
  return { name: 'client-api.ts', text };
}
