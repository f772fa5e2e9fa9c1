// What `npm run contract` checks against a running deployment, from the document alone: valid
// requests are accepted and served as documented, broken ones get the documented 4xx, requests
// without a valid key 401, links are followed (an id from one response feeds the next request), a
// change made with a tag a link gave is refused once that tag is stale. A plug-in (plugin.ts) adds
// what only the project's API knows. A live target is not an empty store: it may hold data already
// and others may be writing, so nothing here assumes a list starts empty or that ids are dense.
import fc from 'fast-check';
import { responseChecks, ContractViolation, describe, type NamedProperty } from './response-checks.js';
import { bodySchemaOf, parametersOf, type ApiRequest, type ValidRequest } from './api-requests.js';
import {
  namePrefix,
  type LiveResponse,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';
import { pathParametersOf, SAFE_METHODS } from './openapi-document.js';
import type { ReadBack, RunContext } from './plugin.js';
import { removeCreated } from './cleanup.js';
import { ownerChecks } from './owner-checks.js';
import { createRunState, ignoringRetiredOrLimited, type RunState } from './run-state.js';
import { schemaArbitraries, toJson } from './schema-arbitraries.js';
import { BODY_PREFIX, linkedBodyMembersOf, linkedHeadersOf } from './spec-links.js';
import { writtenCheck } from './written-check.js';

export {
  namePrefix,
  type LiveResponse,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';

/** Valid requests tried per operation, after the generated cases, before one without a 2xx fails the run. */
const COVERAGE_TRIES = 20;
/** How many writes back the coverage makes a fresh resource for an operation (a pet, then its order). */
const REFRESH_DEPTH = 2;

/** A generated valid request, and how to choose ids from links for it when the run has some. */
interface ValidCase {
  generated: ValidRequest;
  /** Which of the linked values to use. */
  pick: number;
  /** Whether to use them (when there are any); otherwise the generated ids, which may name nothing. */
  useLink: boolean;
}

export function liveChecks(target: LiveSender, options: LiveOptions): LiveChecks {
  const { plugin, released } = options;
  const run = createRunState(target, options);
  const context = runContext(run, options);
  const checkValid = validCheck(run, context, options);
  const { requests, counts, sender } = run;
  const { expectRefused, expectDescribed, expectUnauthorized } = context.checks;
  // Each valid case is one operation's request: ids from a link three times in four, once there are some.
  const validCase = (generated: fc.Arbitrary<ValidRequest>) =>
    fc.record({
      generated,
      pick: fc.nat(),
      useLink: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    });
  const byPlugin = <T extends { name: string }>(added: T): T => ({ ...added, name: `${added.name} [${plugin!.name}]` });
  const properties: NamedProperty[] = [
    {
      name: 'a valid request is accepted and its response keeps the contract',
      property: fc.asyncProperty(fc.oneof(...requests.valid.map(validCase)), ignoringRetiredOrLimited(checkValid)),
    },
    ...(plugin?.properties?.(context).map(byPlugin) ?? []),
    {
      name:
        released === undefined
          ? 'a request that breaks one rule gets the documented 4xx naming what to fix'
          : 'a request the version refuses gets a response its document describes',
      property: fc.asyncProperty(
        fc.oneof(...requests.broken),
        ignoringRetiredOrLimited((broken) =>
          (released === undefined ? expectRefused : expectDescribed)(sender, broken),
        ),
      ),
    },
    ...(requests.withBadKey === undefined
      ? []
      : [
          {
            name: 'a request without a valid key gets 401, whatever else is wrong with it',
            property: fc.asyncProperty(
              requests.withBadKey,
              ignoringRetiredOrLimited((request) => expectUnauthorized(sender, request)),
            ),
          },
        ]),
  ];
  const readBacks: ReadBack[] = (plugin?.readBacks?.(context) ?? []).map(byPlugin);
  return {
    properties,
    coverage: coverageOf(run, checkValid, options.readOnly),
    ownership: (otherKey, seed) => ownerChecks(run, otherKey, { seed, maxPages: options.maxPages }),
    counts: () => [...counts.values()],
    readBacks,
    cleanup: (seed) => removeCreated(run, seed),
    writes: () =>
      [...counts.values()]
        .filter((count) => !SAFE_METHODS.has(count.method.toLowerCase()))
        .reduce((sum, count) => sum + count.succeeded, 0),
  };
}

/** What a plug-in's checks can use of the run. */
function runContext(run: RunState, { runId, apiKey, readOnly, maxPages, plugin }: LiveOptions): RunContext {
  const { contract, counts, sender, touched, generators, chosen } = run;
  const { resolve } = schemaArbitraries(contract.spec);
  const prefix = namePrefix(runId);
  return {
    contract,
    sender,
    checks: responseChecks(contract, plugin?.errors),
    generators,
    runId,
    apiKey,
    readOnly,
    maxPages,
    has: (operationId) => chosen.some((candidate) => candidate.operationId === operationId),
    // A body's string `name`, where its schema has one, begins with this run's prefix: what it writes is findable.
    marked(valid) {
      const body = valid.body as Record<string, unknown> | undefined;
      const bodySchema = bodySchemaOf(contract.operation(valid.request.operationId))?.schema;
      const nameSchema = bodySchema === undefined ? undefined : resolve(bodySchema).properties?.['name'];
      if (body === undefined || typeof body['name'] !== 'string' || nameSchema === undefined) return valid;
      const maxLength = resolve(nameSchema).maxLength ?? Infinity;
      const renamed = {
        ...body,
        name: prefix + [...body['name']].slice(0, Math.max(0, maxLength - [...prefix].length)).join(''),
      };
      return { ...valid, body: renamed, request: { ...valid.request, payload: toJson(renamed) } };
    },
    // Counts the request and the status it got.
    async sendValid(operationId, request) {
      const count = counts.get(operationId)!;
      count.valid += 1;
      const response = await sender.send(request);
      count.statuses.set(response.statusCode, (count.statuses.get(response.statusCode) ?? 0) + 1);
      return response;
    },
    succeeded: (operationId) => void (counts.get(operationId)!.succeeded += 1),
    touched: (value) => touched.has(value),
    ignoringRetiredOrLimited,
  };
}

/**
 * What any operation's valid request must get: a response its document describes, and a 2xx; or,
 * when its path names a resource the generators made up (no link gave it), the documented 404
 * for a missing one. Then what the plug-in knows of the operation, if anything.
 */
function validCheck(run: RunState, context: RunContext, { plugin }: LiveOptions) {
  const { contract, linked, touched, counts, links } = run;
  const { operation } = contract;
  const { expectContract, expectError } = context.checks;
  const expectWritten = writtenCheck(contract);
  const documented = (operationId: string, status: number) => String(status) in operation(operationId).object.responses;
  const routeNotFound = plugin?.errors?.routeNotFound?.code;
  const { expectStaleRefused, expectNamedMissing } = rejectionChecks(run, context, { documented, routeNotFound });
  return async ({ generated, pick, useLink }: ValidCase) => {
    const operationId = generated.request.operationId;
    const choices = [...(linked.get(operationId)?.values() ?? [])];
    const viaLink = useLink && choices.length > 0;
    const choice = viaLink ? choices[pick % choices.length]! : {};
    const valid = context.marked(viaLink ? context.generators.relinked(generated, choice) : generated);
    const { request } = valid;
    const response = await context.sendValid(operationId, request);
    // A header a link fills (If-Match, from an ETag) that the request lacks: an operation that
    // documents 428 needs it, and says so.
    const lacking = linkedHeadersOf(links, operationId).filter((name) => request.headers[name] === undefined);
    if (response.statusCode === 428 && documented(operationId, 428) && lacking.length > 0) {
      const named = parametersOf(operation(operationId)).find(
        (parameter) => parameter.name.toLowerCase() === lacking[0],
      )!.name;
      expectError(request, response, { status: 428, kind: 'preconditionRequired', mentions: named });
      return;
    }
    // What a link gave may be stale: this run changed or removed that resource since (a 412 or 404, when documented).
    const stale = Object.values(valid.params).some((value) => touched.has(String(value)));
    if (viaLink && [412, 404].includes(response.statusCode) && documented(operationId, response.statusCode) && stale) {
      expectContract(request, response);
      return;
    }
    // A request that names a resource (in its path, or in a body member a link fills, as
    // placeOrder's petId) names one in some state: what a link gave may be in one that refuses it,
    // and a made-up one may exist in any state, or not at all. Either way the documented 409 is a
    // response, and for a made-up one it must name the value.
    const namesResource = pathParametersOf(operation(operationId).path).length > 0;
    const namedInBody = linkedBodyMembersOf(links, operationId);
    if (
      response.statusCode === 409 &&
      documented(operationId, 409) &&
      (viaLink || namesResource || namedInBody.length > 0)
    ) {
      if (viaLink) expectContract(request, response);
      else
        expectNamedMissing(
          { ...valid, params: { ...valid.params, ...membersOf(valid.body, namedInBody) } },
          response,
          409,
        );
      return;
    }
    if (response.statusCode === 404 && !viaLink && namesResource && documented(operationId, 404)) {
      // A made-up id may or may not exist on a live store: its 404 must say which resource is missing.
      expectNamedMissing(valid, response);
      await plugin?.afterValid?.(context, valid, response);
      return;
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      const what = `a valid request${viaLink ? ' naming what this run created (by a link of the spec)' : ''}`;
      expectContract(request, response, [`expected a 2xx: ${what} must be accepted`]);
    }
    expectContract(request, response);
    counts.get(operationId)!.succeeded += 1;
    if (!SAFE_METHODS.has(operation(operationId).method)) {
      for (const value of Object.values(valid.params)) touched.add(String(value));
      // What a body named by a link (a pet an order holds) may have changed too.
      for (const [name, value] of Object.entries(choice)) if (name.startsWith(BODY_PREFIX)) touched.add(String(value));
    }
    expectWritten(valid, response);
    await expectStaleRefused(operationId, request, response);
    await plugin?.afterValid?.(context, valid, response);
  };
}

/** The members `names` of a request body, as the values a 409 must name. */
const membersOf = (body: unknown, names: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(
    names
      .filter((name) => Object.hasOwn(body as object, name))
      .map((name) => [name, (body as Record<string, unknown>)[name]]),
  );

function rejectionChecks(
  { contract, links, sender }: RunState,
  { checks }: RunContext,
  {
    documented,
    routeNotFound,
  }: {
    documented: (operationId: string, status: number) => boolean;
    /** The API's code for a path it does not serve, if its vocabulary names one. */
    routeNotFound: string | undefined;
  },
) {
  return {
    /**
     * A change made with the tag a link gave (If-Match), that returned a new tag (ETag): the same
     * request again holds a stale tag, and must be refused with the documented 412 naming the new one.
     */
    async expectStaleRefused(operationId: string, request: ApiRequest, response: LiveResponse) {
      const etag = response.headers['etag'];
      const sent = linkedHeadersOf(links, operationId)
        .map((name) => request.headers[name])
        .find((value) => value !== undefined);
      const unsafe = !SAFE_METHODS.has(contract.operation(operationId).method);
      if (!unsafe || !documented(operationId, 412) || sent === undefined || sent === '*') return;
      if (typeof etag !== 'string' || etag === sent) return;
      const again = await sender.send(request);
      checks.expectError(request, again, { status: 412, kind: 'preconditionFailed', mentions: etag });
    },
    /** The documented 404 of a valid request whose path names what may not exist: it must name what is missing. */
    expectNamedMissing(valid: ValidRequest, response: LiveResponse, status = 404) {
      const { request } = valid;
      checks.expectContract(request, response);
      const problems = Object.values(valid.params)
        .filter((value) => !String(response.json?.message).includes(String(value)))
        .map((value) => `expected the message to name ${String(value)}`);
      if (routeNotFound !== undefined && response.json?.code === routeNotFound)
        problems.push(`${routeNotFound}: the operation is not served`);
      if (problems.length > 0)
        throw new ContractViolation(
          request,
          `${describe(request)} → ${status} ${response.body}\n  ${problems.join('\n  ')}`,
        );
    },
  };
}

/**
 * Sends more valid requests (following links first) to every operation that has not yet had a 2xx
 * from one, then returns the operations still without one, each with why.
 */
function coverageOf(run: RunState, checkValid: (valid: ValidCase) => Promise<void>, readOnly: boolean) {
  const { requests, counts, isRetired, linked, contract } = run;
  const whyNo2xx = (count: OperationCount) => {
    if (count.unmade !== undefined) return `no valid request could be generated: ${count.unmade}`;
    const statuses = [...count.statuses].map(([status, times]) => `${status} ×${times}`).join(', ');
    const namesResource = pathParametersOf(contract.operation(count.operationId).path).length > 0;
    const needsLink = namesResource && !linked.has(count.operationId);
    const readOnlyNote = readOnly ? ' (read-only: it creates nothing, so the target must hold data)' : '';
    return (
      `none of its ${count.valid} valid requests got a 2xx (${statuses})` +
      (needsLink
        ? `; its path names a resource, and no link of ${contract.name} gave one from a response of this run${readOnlyNote}`
        : '')
    );
  };
  let samples = 0;
  const sample = (valid: fc.Arbitrary<ValidRequest>, seed: number) =>
    fc.sample(valid, { seed: seed + samples++, numRuns: COVERAGE_TRIES });
  /** The writes whose responses link to `operationId` (placeOrder's 201, for completeOrder). */
  const writesTo = (operationId: string) => [
    ...new Set(
      run.links
        .filter((link) => link.to === operationId && !SAFE_METHODS.has(contract.operation(link.from).method))
        .map((link) => link.from)
        .filter((from) => counts.has(from) && !isRetired(from)),
    ),
  ];
  const newest = (operationId: string) => Math.max(0, (linked.get(operationId)?.size ?? 1) - 1);
  /**
   * A fresh value for `operationId` from each write that links to it: one of its valid requests
   * that got a 2xx, each itself on a fresh value first, `depth` writes back (an order of a pet just
   * added). What earlier requests left may be in a state that refuses (an order completed or
   * expired): a resource just made is not.
   */
  const refresh = async (operationId: string, depth: number, seed: number): Promise<void> => {
    if (depth === 0) return;
    for (const source of writesTo(operationId)) {
      const count = counts.get(source)!;
      const before = count.succeeded;
      const made = requests.made.find(({ operation }) => operation.operationId === source);
      for (const generated of made === undefined ? [] : sample(made.valid, seed)) {
        if (count.succeeded > before) break;
        await refresh(source, depth - 1, seed);
        await ignoringRetiredOrLimited(checkValid)({ generated, pick: newest(source), useLink: true });
      }
    }
  };
  return async (seed: number) => {
    for (const {
      operation: { operationId },
      valid,
    } of requests.made) {
      const count = counts.get(operationId)!;
      if (isRetired(operationId) || count.succeeded > 0) continue;
      const fresh = writesTo(operationId).length > 0;
      for (const [index, generated] of sample(valid, seed).entries()) {
        if (count.succeeded > 0) break;
        if (fresh) await refresh(operationId, REFRESH_DEPTH, seed);
        await ignoringRetiredOrLimited(checkValid)({
          generated,
          pick: fresh ? newest(operationId) : index,
          useLink: true,
        });
      }
    }
    const unreachedWhy = (count: OperationCount) => {
      const sources = [...new Set(run.links.filter((link) => link.to === count.operationId).map((link) => link.from))];
      const namesResource = pathParametersOf(contract.operation(count.operationId).path).length > 0;
      if (!namesResource || linked.has(count.operationId) || sources.length === 0) return undefined;
      // A write reached only from reads: a run changes only what it created, never what it merely found.
      const isWrite = !SAFE_METHODS.has(count.method.toLowerCase());
      if (isWrite && sources.every((from) => SAFE_METHODS.has(contract.operation(from).method)))
        return `only reads (${sources.join(', ')}) link to it, and a run writes only to what it created`;
      if (!sources.every((from) => (counts.get(from)?.succeeded ?? 0) > 0)) return undefined;
      return `${sources.join(', ')} responded 2xx naming none of what its path needs: the target holds none`;
    };
    const left = [...counts.values()].filter((count) => count.succeeded === 0 && !isRetired(count.operationId));
    const describe = (count: OperationCount, why: string) =>
      `${count.operationId} (${count.method} ${count.path}): ${why}`;
    const withNo2xx: string[] = [];
    const unreached: string[] = [];
    for (const count of left) {
      const why = unreachedWhy(count);
      if (why === undefined) withNo2xx.push(describe(count, whyNo2xx(count)));
      else unreached.push(describe(count, why));
    }
    return { withNo2xx, unreached };
  };
}
