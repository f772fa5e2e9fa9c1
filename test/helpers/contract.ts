// Checks responses against openapi.yaml itself: the status must be documented for the
// operation, the body must match the documented schema, documented headers marked required must
// be sent, and every documented header sent must match its schema.
import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import type { ValidateFunction } from 'ajv';
import { loadSpec, operationsOf, type Operation } from '../../src/spec/openapi-spec.js';
import { createAjv, toAjvSchema } from '../../src/validation/ajv.js';
import { parseJson } from '../../src/validation/strict-json.js';
import { escapePointer, unescapePointer } from '../../src/validation/json-pointer.js';

export const spec = loadSpec();
export const operations = operationsOf(spec);

const SPEC_ID = 'openapi.yaml';
const ajv = createAjv();
ajv.addSchema(toAjvSchema({ $id: SPEC_ID, ...spec } as object));

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, unknown>;
}

interface HeaderObject {
  required?: boolean;
  schema: object;
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => `/${escapePointer(segment)}`).join('');
}

function lookup(ref: string): ResponseObject {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: any, segment) => node[unescapePointer(segment)], spec) as ResponseObject;
}

export function operation(operationId: string): Operation {
  const found = operations.find((candidate) => candidate.operationId === operationId);
  if (found === undefined) throw new Error(`no operation ${operationId} in openapi.yaml`);
  return found;
}

/** The statuses openapi.yaml documents for an operation. */
export function documentedStatuses(operationId: string): number[] {
  return Object.keys(operation(operationId).object.responses).map(Number);
}

interface HeaderContract {
  name: string;
  required: boolean;
  validate: ValidateFunction;
}

const validators = new Map<string, { validate: ValidateFunction; headers: HeaderContract[] }>();

function contractFor(operationId: string, status: string) {
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
    const validate = ajv.compile({ $ref: `${SPEC_ID}${base}${pointer('content', 'application/json', 'schema')}` });
    const headers = Object.entries(response.headers ?? {}).map(([name, header]) => {
      const resolved = (header as ResponseObject).$ref === undefined ? (header as HeaderObject) : (lookup((header as ResponseObject).$ref!) as HeaderObject);
      return { name, required: resolved.required === true, validate: ajv.compile(toAjvSchema(resolved.schema)) };
    });
    contract = { validate, headers };
    validators.set(key, contract);
  }
  return contract;
}

const validateError = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/Error` });

/** An HTTP answer, from `inject` or from a real socket. */
export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Every way the answer breaks the contract of `operationId`: an undocumented status, a body
 * that is not JSON or fails its schema, a missing documented header, an Error whose `status`
 * differs from the HTTP status. Empty when the answer keeps the contract.
 */
export function contractViolations(answer: HttpAnswer, operationId: string): string[] {
  const status = String(answer.statusCode);
  if (!(status in operation(operationId).object.responses)) {
    return [`${operationId} answered ${status}, which openapi.yaml does not document: ${answer.body}`];
  }
  const violations: string[] = [];
  const { validate, headers } = contractFor(operationId, status);
  if (!/^application\/json; charset=utf-8$/.test(String(answer.headers['content-type']))) {
    violations.push(`${operationId} ${status} content type is ${String(answer.headers['content-type'])}`);
  }
  let body: unknown;
  try {
    body = parseJson(answer.body);
  } catch (error) {
    return [...violations, `${operationId} ${status} body is not JSON (${(error as Error).message}): ${answer.body}`];
  }
  if (!validate(body)) violations.push(`${operationId} ${status} body does not match openapi.yaml: ${ajv.errorsText(validate.errors)}`);
  for (const header of headers) {
    const value = answer.headers[header.name.toLowerCase()];
    if (value === undefined) {
      if (header.required) violations.push(`${operationId} ${status} lacks the documented ${header.name} header`);
    } else if (!header.validate(value)) {
      violations.push(`${operationId} ${status} ${header.name} header ${JSON.stringify(value)} does not match openapi.yaml: ${ajv.errorsText(header.validate.errors)}`);
    }
  }
  if (answer.statusCode >= 400 && (body as { status?: unknown }).status !== answer.statusCode) {
    violations.push(`${operationId} ${status} Error.status is ${String((body as { status?: unknown }).status)}`);
  }
  return violations;
}

/** Asserts the response keeps the contract of `operationId`, and returns its parsed body. */
export function checkContract(t: Test, response: LightMyRequestResponse, operationId: string): any {
  t.same(contractViolations(response, operationId), [], `${operationId} ${response.statusCode} keeps the contract of openapi.yaml`);
  try {
    return parseJson(response.body);
  } catch {
    return undefined;
  }
}

/** Asserts an answer outside any operation (unknown route, wrong method…) is a well-formed Error. */
export function checkErrorBody(t: Test, response: LightMyRequestResponse, status: number, code: string) {
  t.equal(response.statusCode, status, `status ${status}`);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/, 'JSON content type');
  const body = parseJson(response.body) as { code: string; status: number };
  t.ok(validateError(body), `body is an Error: ${ajv.errorsText(validateError.errors)}`);
  t.equal(body.code, code, `code ${code}`);
  t.equal(body.status, status, 'Error.status repeats the HTTP status');
  return body as { code: string; message: string; status: number };
}
