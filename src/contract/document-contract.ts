// Checks responses against an OpenAPI document itself (openapi.yaml unless told otherwise): the
// status must be documented for the operation, the body must match the documented schema,
// documented headers marked required must be sent, and every documented header sent must match its
// schema. A released version of the interface (npm run compat) is checked the same way, with its
// own document as the parameter.
import type { Ajv, ValidateFunction } from 'ajv';
import { parseJson } from './exact-json.js';
import {
  escapePointer,
  operationsOf,
  unescapePointer,
  type OpenApiDocument,
  type Operation,
} from './openapi-document.js';
import { createValidator, forValidation } from './schema-validator.js';

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}

interface HeaderObject {
  required?: boolean;
  schema: object;
}

interface HeaderContract {
  name: string;
  required: boolean;
  validate: ValidateFunction;
}

/** An HTTP response, from `inject` or from a real socket. */
/**
 * RFC 9457's rule for an error body's `status` member, when it has one: the HTTP status the
 * response was sent with. Whether a body must have one is its schema's business.
 */
export function statusMismatch(body: unknown, statusCode: number): string | undefined {
  if (statusCode < 400 || typeof body !== 'object' || body === null || !Object.hasOwn(body, 'status')) return undefined;
  const { status } = body as { status: unknown };
  return status === statusCode ? undefined : `the body's status is ${String(status)}`;
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** One document's contract: its operations, and what its responses must be. */
export interface Contract {
  spec: OpenApiDocument;
  /** How reports name the document: `openapi.yaml`, or a released version's file. */
  name: string;
  operations: Operation[];
  operation(operationId: string): Operation;
  /** The statuses the document documents for an operation. */
  documentedStatuses(operationId: string): number[];
  /**
   * Every way the response breaks the contract of `operationId`: an undocumented status, a body
   * that is not JSON or fails its schema, a missing documented header, an Error whose `status`
   * differs from the HTTP status. Empty when the response keeps the contract.
   */
  violations(response: HttpResponse, operationId: string): string[];
  /** Every way a body breaks the document's Error schema; empty when it is an Error. */
  errorViolations(body: unknown): string[];
  /**
   * Every way a webhook delivery's body (its text, as received) breaks the schema the document's
   * `webhooks` declare for its event type; empty when it keeps it.
   */
  deliveryViolations(body: string): string[];
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => `/${escapePointer(segment)}`).join('');
}

// Compiling a document's schemas is most of what a contract costs (the compat gate's tests build one
// per released version for each of ~20 edited specs): a process keeps the last few, keyed by the
// document's content and name, each on its own copy of the document, so no later edit of the
// caller's object can reach it.
const CACHED_CONTRACTS = 32;
const contracts = new Map<string, Contract>();

export function contractOf(spec: OpenApiDocument, name = 'openapi.yaml'): Contract {
  const key = `${name}\n${JSON.stringify(spec, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))}`;
  let contract = contracts.get(key);
  if (contract === undefined) {
    contract = compileContract(structuredClone(spec), name);
    if (contracts.size === CACHED_CONTRACTS) contracts.delete(contracts.keys().next().value!);
  } else {
    contracts.delete(key);
  }
  contracts.set(key, contract);
  return contract;
}

function compileContract(spec: OpenApiDocument, name: string): Contract {
  const operations = operationsOf(spec);
  const ajv = createValidator();
  const id = 'document';
  ajv.addSchema(forValidation({ $id: id, ...spec } as object));

  const lookup = (ref: string): ResponseObject =>
    ref
      .replace(/^#\//, '')
      .split('/')
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a walk of any JSON, typed at its end
      .reduce((node: any, segment) => node[unescapePointer(segment)], spec) as ResponseObject;

  const operation = (operationId: string): Operation => {
    const found = operations.find((candidate) => candidate.operationId === operationId);
    if (found === undefined) throw new Error(`no operation ${operationId} in ${name}`);
    return found;
  };

  // `validate` is undefined for a response documented without content (204): its body must be empty.
  const validators = new Map<string, { validate: ValidateFunction | undefined; headers: HeaderContract[] }>();
  const responseContract = (operationId: string, status: string) => {
    const key = `${operationId} ${status}`;
    let contract = validators.get(key);
    if (contract === undefined) {
      const { path, method, object } = operation(operationId);
      let response = object.responses[status] as ResponseObject;
      let base = `#${pointer('paths', path, method, 'responses', status)}`;
      if (response.$ref !== undefined) {
        base = response.$ref;
        response = lookup(response.$ref);
      }
      const validate =
        response.content === undefined
          ? undefined
          : ajv.compile({ $ref: `${id}${base}${pointer('content', 'application/json', 'schema')}` });
      const headers = Object.entries(response.headers ?? {}).map(([name, header]) => {
        const resolved =
          (header as ResponseObject).$ref === undefined
            ? (header as HeaderObject)
            : (lookup((header as ResponseObject).$ref!) as HeaderObject);
        return { name, required: resolved.required === true, validate: ajv.compile(forValidation(resolved.schema)) };
      });
      contract = { validate, headers };
      validators.set(key, contract);
    }
    return contract;
  };

  // Compiled when first asked for: a document need not have an Error schema to be checked.
  let validateError: ValidateFunction | undefined;

  const deliveryViolations = deliveryChecker(spec, name, ajv, id);

  /** What is wrong with the response's documented headers. */
  const headerProblems = (response: HttpResponse, operationId: string, status: string, headers: HeaderContract[]) => {
    const found: string[] = [];
    for (const header of headers) {
      const value = response.headers[header.name.toLowerCase()];
      if (value === undefined) {
        if (header.required) found.push(`${operationId} ${status} lacks the documented ${header.name} header`);
      } else if (!header.validate(value)) {
        found.push(
          `${operationId} ${status} ${header.name} header ${JSON.stringify(value)} does not match ${name}: ${ajv.errorsText(header.validate.errors)}`,
        );
      }
    }
    return found;
  };

  const violations = (response: HttpResponse, operationId: string): string[] => {
    const status = String(response.statusCode);
    if (!(status in operation(operationId).object.responses)) {
      return [`${operationId} responded ${status}, which ${name} does not document: ${response.body}`];
    }
    const found: string[] = [];
    const { validate, headers } = responseContract(operationId, status);
    if (validate === undefined) {
      if (response.body !== '')
        found.push(`${operationId} ${status} has a body, which ${name} does not document: ${response.body}`);
      found.push(...headerProblems(response, operationId, status, headers));
      return found;
    }
    if (!/^application\/json; charset=utf-8$/.test(String(response.headers['content-type']))) {
      found.push(`${operationId} ${status} content type is ${String(response.headers['content-type'])}`);
    }
    let body: unknown;
    try {
      body = parseJson(response.body);
    } catch (error) {
      return [...found, `${operationId} ${status} body is not JSON (${(error as Error).message}): ${response.body}`];
    }
    if (!validate(body))
      found.push(`${operationId} ${status} body does not match ${name}: ${ajv.errorsText(validate.errors)}`);
    found.push(...headerProblems(response, operationId, status, headers));
    const mismatch = statusMismatch(body, response.statusCode);
    if (mismatch !== undefined) found.push(`${operationId} ${status} ${mismatch}`);
    return found;
  };

  return {
    spec,
    name,
    operations,
    operation,
    documentedStatuses: (operationId) => Object.keys(operation(operationId).object.responses).map(Number),
    violations,
    deliveryViolations,
    errorViolations: (body) => {
      validateError ??= ajv.compile({ $ref: `${id}#/components/schemas/Error` });
      return validateError(body) ? [] : [`not an Error of ${name}: ${ajv.errorsText(validateError.errors)}`];
    },
  };
}

/**
 * Every way a webhook delivery's body (its text, as received) breaks the schema the document's
 * `webhooks` declare for its event type.
 */
function deliveryChecker(spec: OpenApiDocument, name: string, ajv: Ajv, id: string) {
  const validators = new Map<string, ValidateFunction>();
  return (text: string): string[] => {
    let body: unknown;
    try {
      body = parseJson(text);
    } catch (error) {
      return [`a webhook delivery's body is not JSON (${(error as Error).message}): ${text}`];
    }
    const type = String((body as { type?: unknown } | null)?.type);
    const webhooks = (spec as { webhooks?: Record<string, { post?: unknown }> }).webhooks ?? {};
    if (webhooks[type]?.post === undefined)
      return [`a webhook delivery of type ${type}, which ${name} does not declare in webhooks: ${text}`];
    let validate = validators.get(type);
    if (validate === undefined) {
      validate = ajv.compile({
        $ref: `${id}#${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`,
      });
      validators.set(type, validate);
    }
    return validate(body) ? [] : [`a ${type} delivery does not match ${name}: ${ajv.errorsText(validate.errors)}`];
  };
}
