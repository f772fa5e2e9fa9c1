// That one client's key cannot reach another's objects, where the document marks them owned
// (`x-owner` on a schema, owned-schemas.ts): checked with a second key of another client, after a
// live run made objects with the first. Every operation a link from an owned object leads to is
// sent, with the other key, the ids of the run's own objects: it must respond with its documented
// 404, as for an id that never existed (a 403 means the other key lacks the operation's role, and
// is reported as not checked). Every list of the owned schema is read with the other key, page
// after page: it must hold none of the run's objects. Generic: the operations, links and lists
// come from the document alone.
import fc from 'fast-check';
import { bigintText, ContractViolation, describe, normalized, responseChecks } from './response-checks.js';
import type { ApiRequest } from './api-requests.js';
import { nextTarget } from './link-header.js';
import type { OwnerOutcome } from './live-options.js';
import type { RunState } from './run-state.js';

/** Objects tried per operation: enough to see a leak, few enough for a live deployment. */
const PER_OPERATION = 3;

export async function ownerChecks(
  run: RunState,
  otherKey: string,
  { seed, maxPages }: { seed: number; maxPages: number },
): Promise<OwnerOutcome[]> {
  const { contract, generators, owned, ownedIds, ownedBy, sender } = run;
  const { expectContract } = responseChecks(contract);
  const asOther = (request: ApiRequest): ApiRequest => ({
    ...request,
    headers: { ...request.headers, authorization: `Bearer ${otherKey}` },
  });
  const outcomes: OwnerOutcome[] = [];
  const byName = (a: { operationId: string }, b: { operationId: string }) => a.operationId.localeCompare(b.operationId);
  for (const operation of [...contract.operations].sort(byName)) {
    const { operationId } = operation;
    const objects = owned.get(operationId);
    const listed = operation.method === 'get' ? ownedBy.listOf(operation) : undefined;
    if (objects === undefined && listed === undefined) continue;
    try {
      if (objects !== undefined) {
        const tried = [...objects.values()].slice(0, PER_OPERATION);
        let held = false;
        for (const values of tried) {
          const [generated] = fc.sample(generators.validRequest(operation), { numRuns: 1, seed });
          const request = asOther(generators.relinked(generated!, values).request);
          const response = await sender.send(request);
          if (response.statusCode === 403) {
            held = true;
            break;
          }
          if (response.statusCode !== 404)
            throw new ContractViolation(
              request,
              `${describe(request)} with another client's key → ${response.statusCode}, not the 404 of an id that never existed: it reached an object of the run's client (${JSON.stringify(normalized(values), bigintText)})`,
            );
          expectContract(request, response);
        }
        outcomes.push({ operationId, result: held ? 'held' : 'checked', objects: tried.length });
        continue;
      }
      const ids = ownedIds.get(listed!);
      if (ids === undefined || ids.ids.size === 0) {
        outcomes.push({ operationId, result: 'unreached', objects: 0 });
        continue;
      }
      outcomes.push(await listCheck(run, { operation, ids, asOther, maxPages, seed }));
    } catch (error) {
      if (!(error instanceof ContractViolation)) throw error;
      outcomes.push({ operationId, result: 'violated', objects: 0, violation: error });
    }
  }
  return outcomes;
}

/** Reads a list of owned objects with the other key, its pages without filters: none of the run's may be there. */
async function listCheck(
  run: RunState,
  {
    operation,
    ids,
    asOther,
    maxPages,
    seed,
  }: {
    operation: RunState['chosen'][number];
    ids: { member: string; ids: Set<string> };
    asOther: (request: ApiRequest) => ApiRequest;
    maxPages: number;
    seed: number;
  },
): Promise<OwnerOutcome> {
  const { contract, generators, sender } = run;
  const { expectContract } = responseChecks(contract);
  const [generated] = fc.sample(generators.validRequest(operation), { numRuns: 1, seed });
  // Without its query: every object the other key may list, not those of a filter.
  let request = asOther({ ...generated!.request, url: generated!.request.url.replace(/\?.*$/s, '') });
  for (let page = 0; page < maxPages; page++) {
    const response = await sender.send(request);
    if (response.statusCode === 403) return { operationId: operation.operationId, result: 'held', objects: 0 };
    expectContract(request, response);
    const items = Array.isArray(response.json) ? (response.json as Record<string, unknown>[]) : [];
    const leaked = items.find((item) => ids.ids.has(String(item[ids.member])));
    if (leaked !== undefined)
      throw new ContractViolation(
        request,
        `${describe(request)} with another client's key lists an object of the run's client (${ids.member} ${String(leaked[ids.member])})`,
      );
    const next = nextTarget(response.headers['link']);
    if (next === undefined) break;
    // A link's target is an absolute path, as the generated requests' URLs are.
    request = { ...request, url: next };
  }
  return { operationId: operation.operationId, result: 'checked', objects: ids.ids.size };
}
