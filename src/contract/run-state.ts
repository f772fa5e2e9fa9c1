// What a live run keeps while it runs: the operations it sends, their counts, the values links
// gave, what it changed, and the sender every request goes through (counting it, following links,
// and ending the check of a request a retired operation or a limit served).
import { bigintText, ContractViolation, describe, normalized } from './response-checks.js';
import { requestGenerators } from './api-requests.js';
import { statusMismatch } from './document-contract.js';
import type { LiveOptions, LiveSender, OperationCount } from './live-options.js';
import { SAFE_METHODS, type OpenApiDocument } from './openapi-document.js';
import { ownedSchemasOf } from './owned-schemas.js';
import { linkedValues, linksOf, type SpecLink } from './spec-links.js';

/** A request of an operation past its sunset, served as a retired operation may be: nothing to check. */
export class Retired extends Error {}
/** A request still refused 429 after the target waited and sent it again: the deployment's limit, not a violation. */
export class RateLimited extends Error {}

/** Runs `check`; the response of a retired operation, or a limit's, ends it without a failure. */
export const ignoringRetiredOrLimited =
  <T extends unknown[]>(check: (...args: T) => Promise<void>) =>
  async (...args: T) => {
    try {
      await check(...args);
    } catch (error) {
      if (!(error instanceof Retired) && !(error instanceof RateLimited)) throw error;
    }
  };

/** The version's own links, and those it lacks of the current spec's (the same link in both is followed once). */
function linksOfRun(spec: OpenApiDocument, name: string, more: readonly SpecLink[]): SpecLink[] {
  const linkKey = ({ from, status, to, parameters }: SpecLink) => JSON.stringify([from, status, to, parameters]);
  return [...new Map([...linksOf(spec, name), ...more].map((link) => [linkKey(link), link])).values()];
}

export type RunState = ReturnType<typeof createRunState>;

export function createRunState(target: LiveSender, options: LiveOptions) {
  const { readOnly, contract, apiKey, released, clock = Date.now, plugin } = options;
  const { operation } = contract;
  const generators = requestGenerators(contract, apiKey, plugin?.query);
  const notSent = released?.notSent ?? new Set<string>();
  const chosen = contract.operations.filter(
    (candidate) => !notSent.has(candidate.operationId) && (!readOnly || SAFE_METHODS.has(candidate.method)),
  );
  const requests = generators.requestsOf(chosen.map((candidate) => candidate.operationId));
  const inContract = (operationId: string) =>
    contract.operations.some((candidate) => candidate.operationId === operationId);
  const links = linksOfRun(contract.spec, contract.name, released?.links ?? []).filter(
    (link) => inContract(link.from) && inContract(link.to),
  );
  const counts = new Map<string, OperationCount>(
    chosen.map(({ operationId, method, path }) => [
      operationId,
      {
        operationId,
        method: method.toUpperCase(),
        path,
        sent: 0,
        valid: 0,
        succeeded: 0,
        statuses: new Map(),
        ...(requests.unmade.has(operationId) ? { unmade: requests.unmade.get(operationId)! } : {}),
      },
    ]),
  );
  /** Values each link has given, by the operation they are for; each as JSON text too, to keep them once. */
  const linked = new Map<string, Map<string, Record<string, unknown>>>();
  /** Ids a 2xx response to a request of an unsafe method reached through a link: what they name may have changed. */
  const touched = new Set<string>();
  /**
   * What links gave from responses holding objects of an owned schema (`x-owner`, owned-schemas.ts),
   * by the operation they are for: the objects of this run's client, which another client's key must
   * not reach. And each owned schema's objects as its links name them (the member, and its values).
   */
  const owned = new Map<string, Map<string, Record<string, unknown>>>();
  const ownedIds = new Map<string, { member: string; ids: Set<string> }>();
  const ownedBy = ownedSchemasOf(contract.spec);

  // A retired operation's response ends the check of its request, if it is one a retired operation may
  // give: a released version's, past the sunset it announced, may be gone from the spec (404, 405);
  // the contract's own, when the plug-in's calendar says it is retired, responds as its spec
  // documents (410). Without a plug-in, no operation of the contract is retired.
  const isRetired = (operationId: string) =>
    released === undefined
      ? plugin?.retired?.(operation(operationId), clock()) === true
      : released.retired.has(operationId);
  const retiredStatuses = released === undefined ? [410] : [404, 405, 410];

  /** Notes the values each link of the response's operation and status gives, for later requests. */
  const follow = (request: Parameters<LiveSender['send']>[0], response: Awaited<ReturnType<LiveSender['send']>>) => {
    for (const link of links) {
      if (link.from !== request.operationId || link.status !== String(response.statusCode)) continue;
      // A write follows links only from what this run wrote, never from a read (a made-up id may
      // name another client's data): a run changes and removes only what it created.
      if (!SAFE_METHODS.has(operation(link.to).method) && SAFE_METHODS.has(request.method.toLowerCase())) continue;
      const values = linkedValues(link, response.json, response.headers);
      if (values === undefined) continue;
      const text = JSON.stringify(normalized(values), bigintText);
      if (!linked.has(link.to)) linked.set(link.to, new Map());
      linked.get(link.to)!.set(text, values);
      const schema = ownedBy.of(operation(link.from), link.status);
      const [named] = link.parameters;
      if (schema !== undefined && named !== undefined) {
        if (!owned.has(link.to)) owned.set(link.to, new Map());
        owned.get(link.to)!.set(text, values);
        // The member of the object the link names it by: `id` of `/id`, or of `/0/id` in a list.
        const member = named.pointer.at(-1)!;
        if (!ownedIds.has(schema)) ownedIds.set(schema, { member, ids: new Set() });
        ownedIds.get(schema)!.ids.add(String(values[named.name]));
      }
    }
  };

  const sender: LiveSender = {
    async send(request) {
      const response = await target.send(request);
      const count = counts.get(request.operationId);
      if (count !== undefined) count.sent += 1;
      if (retiredStatuses.includes(response.statusCode) && isRetired(request.operationId)) {
        const problems = contract.errorViolations(response.json);
        const mismatch = statusMismatch(response.json, response.statusCode);
        if (mismatch !== undefined) problems.push(mismatch);
        if (problems.length > 0)
          throw new ContractViolation(
            request,
            `${describe(request)} → ${response.statusCode} ${response.body}\n  ${problems.join('\n  ')}`,
          );
        throw new Retired();
      }
      if (response.statusCode === 429) {
        // A limit never fails a run: the response must be the documented 429, and the check of this request ends there.
        const problems = contract.violations(response, request.operationId);
        if (problems.length > 0)
          throw new ContractViolation(
            request,
            `${describe(request)} → 429 ${response.body}\n  ${problems.join('\n  ')}`,
          );
        throw new RateLimited();
      }
      follow(request, response);
      return response;
    },
  };

  return {
    contract,
    generators,
    chosen,
    requests,
    links,
    counts,
    linked,
    touched,
    owned,
    ownedIds,
    ownedBy,
    isRetired,
    sender,
  };
}
