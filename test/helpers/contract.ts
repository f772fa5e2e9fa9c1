// openapi.yaml's contract (src/contract/document-contract.ts), and the assertions the tests make
// with it: a response keeps the contract of its operation; a response outside any operation is an Error.
import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { contractOf } from 'openapi-contract-engine';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import { parseJson } from '../../src/validation/strict-json.js';

/** openapi.yaml's contract, which the tests and npm run contract check. */
export const spec = loadSpec();
export const current = contractOf(spec);
export const { operations, operation, documentedStatuses } = current;
export const contractViolations = current.violations;

/** Asserts the response keeps the contract of `operationId`, and returns its parsed body. */
export function checkContract(t: Test, response: LightMyRequestResponse, operationId: string): any {
  t.same(
    contractViolations(response, operationId),
    [],
    `${operationId} ${response.statusCode} keeps the contract of openapi.yaml`,
  );
  try {
    return parseJson(response.body);
  } catch {
    return undefined;
  }
}

/** Asserts a response outside any operation (unknown route, wrong method…) is a well-formed Error. */
export function checkErrorBody(t: Test, response: LightMyRequestResponse, status: number, code: string) {
  t.equal(response.statusCode, status, `status ${status}`);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/, 'JSON content type');
  const body = parseJson(response.body) as { code: string; status: number };
  t.same(current.errorViolations(body), [], 'body is an Error');
  t.equal(body.code, code, `code ${code}`);
  t.equal(body.status, status, 'Error.status repeats the HTTP status');
  return body as { code: string; message: string; status: number };
}
