// What a response to a generated request must be, against one document's contract: the shared
// checks of the in-process properties (in-process.ts), npm run contract and npm run compat
// (live-checks.ts). Each throws a ContractViolation naming the request, so that fast-check
// can shrink the case and the runners can print it as curl.
import { isDeepStrictEqual } from 'node:util';
import type fc from 'fast-check';
import type { Contract, HttpResponse } from './document-contract.js';
import {
  NO_VOCABULARY,
  type ApiRequest,
  type BrokenRequest,
  type ErrorVocabulary,
  type Expectation,
} from './api-requests.js';

export interface ApiResponse extends HttpResponse {
  // Parsed JSON of any shape: the checks read into it where the schema has already held.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Whatever serves requests: the app through inject, or a deployment over HTTP (http-target.ts). */
export interface Sender {
  send(request: ApiRequest): Promise<ApiResponse>;
}

export interface NamedProperty {
  name: string;
  // Properties over different generated values stand in one list.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  property: fc.IAsyncPropertyWithHooks<any>;
}

/** A broken promise of the contract, with the request that showed it (the live runner prints it as curl). */
export class ContractViolation extends Error {
  constructor(
    readonly request: ApiRequest,
    message: string,
  ) {
    super(message);
  }
}

export function describe(request: ApiRequest): string {
  const payload =
    request.payload === undefined
      ? ''
      : ` ${Buffer.isBuffer(request.payload) ? `<${request.payload.toString('hex')}>` : request.payload}`;
  return `${request.method} ${request.url} ${JSON.stringify(request.headers)}${payload}`;
}

/** Integers compare by value whether they arrive as number or bigint. */
export function normalized(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(normalized);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalized(item)]));
  }
  return value;
}

/** A JSON.stringify replacer that writes a bigint as its digits. */
export const bigintText = (_key: string, value: unknown) => (typeof value === 'bigint' ? String(value) : value);

/** The checks, against `contract`'s document. */
export function responseChecks(contract: Contract, vocabulary: ErrorVocabulary = NO_VOCABULARY) {
  /** Throws with everything that is wrong about the response. */
  function expectContract(request: ApiRequest, response: ApiResponse, extra: string[] = []) {
    const problems = [...contract.violations(response, request.operationId), ...extra];
    if (response.statusCode >= 500) problems.unshift(`server error ${response.statusCode}`);
    if (problems.length > 0) {
      throw new ContractViolation(
        request,
        `${request.method} ${request.url} → ${response.statusCode} ${response.body}\n  ${problems.join('\n  ')}`,
      );
    }
  }

  function expectError(request: ApiRequest, response: ApiResponse, expected: Expectation) {
    const problems: string[] = [];
    if (response.statusCode !== expected.status) problems.push(`expected status ${expected.status}`);
    // A kind the vocabulary does not word is held to its status and its document alone.
    const words = expected.kind === undefined ? undefined : vocabulary[expected.kind];
    const code = expected.code ?? words?.code;
    if (code !== undefined && response.json?.code !== code) problems.push(`expected code ${code}`);
    const texts = expected.kind !== undefined && words === undefined ? [] : [words?.says, expected.mentions];
    for (const text of texts) {
      if (text === undefined) continue;
      if (typeof response.json?.message !== 'string' || !response.json.message.includes(text)) {
        // As JSON: what it must mention may hold control characters, which a report prints as they are.
        problems.push(`expected the message to mention ${JSON.stringify(text)}`);
      }
    }
    expectContract(request, response, problems);
  }

  function expectEqual(request: ApiRequest, response: ApiResponse, expected: unknown, what: string) {
    expectContract(request, response);
    if (!isDeepStrictEqual(normalized(response.json), normalized(expected))) {
      throw new ContractViolation(
        request,
        `${request.method} ${request.url} → ${response.statusCode}: ${what}\n  expected ${JSON.stringify(normalized(expected), bigintText)}\n  got      ${response.body}`,
      );
    }
  }

  /** A request without a valid key gets 401 with a Bearer challenge, before any other complaint. */
  async function expectUnauthorized(sender: Sender, request: ApiRequest) {
    const response = await sender.send(request);
    expectError(request, response, { status: 401, kind: 'unauthorized' });
    if (!String(response.headers['www-authenticate']).startsWith('Bearer ')) {
      throw new ContractViolation(request, `${describe(request)}: 401 without a Bearer challenge`);
    }
  }

  /** A request that breaks one rule gets the documented 4xx, naming what to fix. */
  async function expectRefused(sender: Sender, broken: BrokenRequest) {
    expectError(broken.request, await sender.send(broken.request), broken.expect);
  }

  /**
   * What a client of a released version may count on for a request that version refuses: a
   * response its document describes. A later version may accept what an earlier one refused (a
   * longer name, a new query parameter); what it then responds must still read as that version
   * says, and it must never fail with a 5xx.
   */
  async function expectDescribed(sender: Sender, broken: BrokenRequest) {
    expectContract(broken.request, await sender.send(broken.request));
  }

  return { expectContract, expectError, expectEqual, expectUnauthorized, expectRefused, expectDescribed };
}
