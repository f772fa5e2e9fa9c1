// The 403 of every operation whose security requirement names roles, checked with a second key
// that lacks some of them (npm run contract --limited-key-file, CONTRACT_LIMITED_API_KEY): the
// response must be the documented 403, worded as the API's vocabulary says, with RFC 6750's
// insufficient_scope challenge naming the roles. Generic: the operations and their roles come from
// the document alone. An operation whose roles the key does have responds as the contract says
// otherwise, and is reported as not checked.
import fc from 'fast-check';
import { requiredScopesOf, SAFE_METHODS } from './openapi-document.js';
import { responseChecks, ContractViolation, describe, type Sender } from './response-checks.js';
import { requestGenerators, type ErrorVocabulary, type QueryKnowledge } from './api-requests.js';
import type { Contract } from './document-contract.js';

export interface ScopeOutcome {
  operationId: string;
  roles: readonly string[];
  /**
   * checked: it got the documented 403; held: the key has its roles (another documented response), so nothing was
   * checked.
   */
  result: 'checked' | 'held' | 'violated';
  /** The status it served. */
  status: number;
  violation?: ContractViolation;
}

export async function scopeChecks(
  target: Sender,
  contract: Contract,
  limitedKey: string,
  {
    readOnly,
    seed,
    query,
    errors,
  }: { readOnly: boolean; seed: number; query?: QueryKnowledge | undefined; errors?: ErrorVocabulary | undefined },
): Promise<ScopeOutcome[]> {
  const { validRequest } = requestGenerators(contract, limitedKey, query);
  const { expectContract, expectError } = responseChecks(contract, errors);
  const outcomes: ScopeOutcome[] = [];
  for (const operation of contract.operations) {
    const roles = requiredScopesOf(operation, contract.spec);
    if (roles.length === 0 || (readOnly && !SAFE_METHODS.has(operation.method))) continue;
    const { request } = fc.sample(validRequest(operation), { numRuns: 1, seed })[0]!;
    const response = await target.send(request);
    const { statusCode: status } = response;
    try {
      if (status !== 403) {
        // Past authorization (the key has the roles): any other response the contract documents.
        expectContract(request, response);
        outcomes.push({ operationId: operation.operationId, roles, result: 'held', status });
        continue;
      }
      expectError(request, response, { status: 403, kind: 'insufficientScope', mentions: roles[0]! });
      const challenge = String(response.headers['www-authenticate'] ?? '');
      const scope = /error="insufficient_scope", scope="([^"]*)"/.exec(challenge)?.[1]?.split(' ');
      if (scope === undefined || !roles.every((role) => scope.includes(role))) {
        throw new ContractViolation(
          request,
          `${describe(request)}: 403 without a challenge naming scope="${roles.join(' ')}" (got ${JSON.stringify(challenge)})`,
        );
      }
      outcomes.push({ operationId: operation.operationId, roles, result: 'checked', status });
    } catch (error) {
      if (!(error instanceof ContractViolation)) throw error;
      outcomes.push({ operationId: operation.operationId, roles, result: 'violated', status, violation: error });
    }
  }
  return outcomes;
}
