// What `npm run contract` checks against a running deployment, from the document alone: valid
// requests are accepted and answered as documented, broken ones get the documented 4xx, requests
// without a valid key 401, links are followed (an id from one answer feeds the next request), a
// change made with a tag a link gave is refused once that tag is stale. A plug-in (plugin.ts) adds
// what only the project's API knows. A live target is not an empty store: it may hold data already
// and others may be writing, so nothing here assumes a list starts empty or that ids are dense.
import fc from 'fast-check';
import { answerChecks, ContractViolation, describe, normalized, type NamedProperty } from './answer-checks.js';
import { bodySchemaOf, parametersOf, requestGenerators, type ApiRequest, type ValidRequest } from './api-requests.js';
import { writtenCheck } from './written-check.js';
import {
  namePrefix,
  type LiveAnswer,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';
import { pathParametersOf } from './openapi-document.js';
import type { ReadBack, RunContext } from './plugin.js';
import { schemaArbitraries, toJson } from './schema-arbitraries.js';
import { linkedHeadersOf, linkedValues, linksOf, type SpecLink } from './spec-links.js';

export {
  namePrefix,
  type LiveAnswer,
  type LiveChecks,
  type LiveOptions,
  type LiveSender,
  type OperationCount,
} from './live-options.js';

/** A request of an operation past its sunset, answered as a retired operation may be: nothing to check. */
class Retired extends Error {}
/** A request still refused 429 after the target waited and sent it again: the deployment's limit, not a violation. */
class RateLimited extends Error {}

const SAFE_METHODS = new Set(['get', 'head', 'options']);
/** Valid requests tried per operation, after the generated cases, before one without a 2xx fails the run. */
const COVERAGE_TRIES = 20;

/** A generated valid request, and how to choose ids from links for it when the run has some. */
interface ValidCase {
  generated: ValidRequest;
  /** Which of the linked values to use. */
  pick: number;
  /** Whether to use them (when there are any); otherwise the generated ids, which may name nothing. */
  useLink: boolean;
}

const bigintText = (_key: string, value: unknown) => (typeof value === 'bigint' ? String(value) : value);

/** Runs `check`; the answer of a retired operation, or a limit's, ends it without a failure. */
const excused =
  <T extends unknown[]>(check: (...args: T) => Promise<void>) =>
  async (...args: T) => {
    try {
      await check(...args);
    } catch (error) {
      if (!(error instanceof Retired) && !(error instanceof RateLimited)) throw error;
    }
  };

export function liveChecks(target: LiveSender, options: LiveOptions): LiveChecks {
  const { readOnly, runId, maxPages, contract, apiKey, released, clock = Date.now, plugin } = options;
  const { operation } = contract;
  const { resolve } = schemaArbitraries(contract.spec);
  const generators = requestGenerators(contract, apiKey, plugin?.issued);
  const { requestsOf, relinked } = generators;
  const checks = answerChecks(contract);
  const { expectContract, expectError, expectRefused, expectDescribed, expectUnauthorized } = checks;
  const unheld = released?.unheld ?? new Set<string>();
  const chosen = contract.operations.filter(
    (candidate) => !unheld.has(candidate.operationId) && (!readOnly || SAFE_METHODS.has(candidate.method)),
  );
  const has = (operationId: string) => chosen.some((candidate) => candidate.operationId === operationId);
  const requests = requestsOf(chosen.map((candidate) => candidate.operationId));
  const inContract = (operationId: string) =>
    contract.operations.some((candidate) => candidate.operationId === operationId);
  const links = linksOfRun(contract.spec, contract.name, released?.links ?? []).filter(
    (link) => inContract(link.from) && inContract(link.to),
  );
  const counts = new Map<string, OperationCount>(
    chosen.map((candidate) => [
      candidate.operationId,
      {
        operationId: candidate.operationId,
        method: candidate.method.toUpperCase(),
        path: candidate.path,
        sent: 0,
        valid: 0,
        succeeded: 0,
        statuses: new Map(),
        ...(requests.unmade.has(candidate.operationId) ? { unmade: requests.unmade.get(candidate.operationId)! } : {}),
      },
    ]),
  );
  /** Values each link has given, by the operation they are for; each as JSON text too, to keep them once. */
  const linked = new Map<string, Map<string, Record<string, unknown>>>();
  /** Ids a 2xx answer to a request of an unsafe method reached through a link: what they name may have changed. */
  const touched = new Set<string>();

  // A retired operation's answer ends the check of its request, if it is one a retired operation may
  // give: a released version's, past the sunset it announced, may be gone from the spec (404, 405);
  // the contract's own, when the plug-in's calendar says it is retired, answers as its spec
  // documents (410). Without a plug-in, no operation of the contract is retired.
  const isRetired = (operationId: string) =>
    released === undefined
      ? plugin?.retired?.(operation(operationId), clock()) === true
      : released.retired.has(operationId);
  const retiredStatuses = released === undefined ? [410] : [404, 405, 410];
  const sender: LiveSender = {
    async send(request) {
      const answer = await target.send(request);
      const count = counts.get(request.operationId);
      if (count !== undefined) count.sent += 1;
      if (retiredStatuses.includes(answer.statusCode) && isRetired(request.operationId)) {
        const problems = contract.errorViolations(answer.json);
        if (answer.json?.status !== answer.statusCode) problems.push(`Error.status is ${String(answer.json?.status)}`);
        if (problems.length > 0)
          throw new ContractViolation(
            request,
            `${describe(request)} → ${answer.statusCode} ${answer.body}\n  ${problems.join('\n  ')}`,
          );
        throw new Retired();
      }
      if (answer.statusCode === 429) {
        // A limit never fails a run: the answer must be the documented 429, and the check of this request ends there.
        const problems = contract.violations(answer, request.operationId);
        if (problems.length > 0)
          throw new ContractViolation(request, `${describe(request)} → 429 ${answer.body}\n  ${problems.join('\n  ')}`);
        throw new RateLimited();
      }
      for (const link of links) {
        if (link.from !== request.operationId || link.status !== String(answer.statusCode)) continue;
        // A write follows links only from what this run wrote, never from a read (a made-up id may
        // name another client's data): a run changes and removes only what it created.
        if (!SAFE_METHODS.has(operation(link.to).method) && SAFE_METHODS.has(request.method.toLowerCase())) continue;
        const values = linkedValues(link, answer.json, answer.headers);
        if (values === undefined) continue;
        if (!linked.has(link.to)) linked.set(link.to, new Map());
        linked.get(link.to)!.set(JSON.stringify(normalized(values), bigintText), values);
      }
      return answer;
    },
  };
  const prefix = namePrefix(runId);

  /** A body's string `name`, where its schema has one, begins with this run's prefix: what it writes is findable. */
  const marked = (valid: ValidRequest): ValidRequest => {
    const body = valid.body as Record<string, unknown> | undefined;
    const bodySchema = bodySchemaOf(operation(valid.request.operationId))?.schema;
    const nameSchema = bodySchema === undefined ? undefined : resolve(bodySchema).properties?.['name'];
    if (body === undefined || typeof body['name'] !== 'string' || nameSchema === undefined) return valid;
    const maxLength = resolve(nameSchema).maxLength ?? Infinity;
    const renamed = {
      ...body,
      name: prefix + [...body['name']].slice(0, Math.max(0, maxLength - [...prefix].length)).join(''),
    };
    return { ...valid, body: renamed, request: { ...valid.request, payload: toJson(renamed) } };
  };
  const pathParameters = (operationId: string) => pathParametersOf(operation(operationId).path).length;
  const linkedHeaders = (operationId: string) => linkedHeadersOf(links, operationId);
  const documented = (operationId: string, status: number) => String(status) in operation(operationId).object.responses;

  /** Sends a valid request of `operationId`, counting it and the status it got. */
  const sendValid = async (operationId: string, request: ApiRequest) => {
    const count = counts.get(operationId)!;
    count.valid += 1;
    const answer = await sender.send(request);
    count.statuses.set(answer.statusCode, (count.statuses.get(answer.statusCode) ?? 0) + 1);
    return answer;
  };
  const expectWritten = writtenCheck(contract);

  const context: RunContext = {
    contract,
    sender,
    checks,
    generators,
    runId,
    apiKey,
    readOnly,
    maxPages,
    has,
    marked,
    sendValid,
    succeeded: (operationId) => void (counts.get(operationId)!.succeeded += 1),
    touched: (value) => touched.has(value),
    excused,
  };

  /**
   * A change made with the tag a link gave (If-Match), that answered a new tag (ETag): the same
   * request again holds a stale tag, and must be refused with the documented 412 naming the new one.
   */
  const expectStaleRefused = async (operationId: string, request: ApiRequest, answer: LiveAnswer) => {
    const etag = answer.headers['etag'];
    const sent = linkedHeaders(operationId)
      .map((name) => request.headers[name])
      .find((value) => value !== undefined);
    const unsafe = !SAFE_METHODS.has(operation(operationId).method);
    if (!unsafe || !documented(operationId, 412) || sent === undefined || sent === '*') return;
    if (typeof etag !== 'string' || etag === sent) return;
    expectError(request, await sender.send(request), { status: 412, code: 'PRECONDITION_FAILED', mentions: etag });
  };

  /** The documented 404 of a valid request whose path names what may not exist: it must name what is missing. */
  const expectNamedMissing = (valid: ValidRequest, answer: LiveAnswer) => {
    const { request } = valid;
    expectContract(request, answer);
    const problems = Object.values(valid.params)
      .filter((value) => !String(answer.json?.message).includes(String(value)))
      .map((value) => `expected the message to name ${String(value)}`);
    if (answer.json?.code === 'ROUTE_NOT_FOUND') problems.push('ROUTE_NOT_FOUND: the operation is not served');
    if (problems.length > 0)
      throw new ContractViolation(request, `${describe(request)} → 404 ${answer.body}\n  ${problems.join('\n  ')}`);
  };

  /**
   * What any operation's valid request must get: an answer its document describes, and a 2xx; or,
   * when its path names a resource the generators made up (no link gave it), the documented 404
   * for a missing one. Then what the plug-in knows of the operation, if anything.
   */
  const checkValid = async ({ generated, pick, useLink }: ValidCase) => {
    const operationId = generated.request.operationId;
    const choices = [...(linked.get(operationId)?.values() ?? [])];
    const viaLink = useLink && choices.length > 0;
    const valid = marked(viaLink ? relinked(generated, choices[pick % choices.length]!) : generated);
    const { request } = valid;
    const answer = await sendValid(operationId, request);
    // A header a link fills (If-Match, from an ETag) that the request lacks: an operation that
    // documents 428 needs it, and says so.
    const lacking = linkedHeaders(operationId).filter((name) => request.headers[name] === undefined);
    if (answer.statusCode === 428 && documented(operationId, 428) && lacking.length > 0) {
      const named = parametersOf(operation(operationId)).find(
        (parameter) => parameter.name.toLowerCase() === lacking[0],
      )!.name;
      expectError(request, answer, { status: 428, code: 'PRECONDITION_REQUIRED', mentions: named });
      return;
    }
    // What a link gave may be stale: this run changed or removed that resource since (a 412 or 404, when documented).
    const stale = Object.values(valid.params).some((value) => touched.has(String(value)));
    if (viaLink && [412, 404].includes(answer.statusCode) && documented(operationId, answer.statusCode) && stale) {
      expectContract(request, answer);
      return;
    }
    if (answer.statusCode === 404 && !viaLink && pathParameters(operationId) > 0 && documented(operationId, 404)) {
      // A made-up id may or may not exist on a live store: its 404 must say which resource is missing.
      expectNamedMissing(valid, answer);
      await plugin?.afterValid?.(context, valid, answer);
      return;
    }
    if (answer.statusCode < 200 || answer.statusCode > 299) {
      const what = `a valid request${viaLink ? ' naming what this run created (by a link of the spec)' : ''}`;
      expectContract(request, answer, [`expected a 2xx: ${what} must be accepted`]);
    }
    expectContract(request, answer);
    counts.get(operationId)!.succeeded += 1;
    if (!SAFE_METHODS.has(operation(operationId).method))
      for (const value of Object.values(valid.params)) touched.add(String(value));
    expectWritten(valid, answer);
    await expectStaleRefused(operationId, request, answer);
    await plugin?.afterValid?.(context, valid, answer);
  };

  // Each valid case is one operation's request: ids from a link three times in four, once there are some.
  const validCase = (generated: fc.Arbitrary<ValidRequest>) =>
    fc.record({
      generated,
      pick: fc.nat(),
      useLink: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    });
  const byPlugin = (property: NamedProperty): NamedProperty => ({
    ...property,
    name: `${property.name} [${plugin!.name}]`,
  });
  const properties: NamedProperty[] = [
    {
      name: 'a valid request is accepted and its answer keeps the contract',
      property: fc.asyncProperty(fc.oneof(...requests.valid.map(validCase)), excused(checkValid)),
    },
    ...(plugin?.properties?.(context).map(byPlugin) ?? []),
    {
      name:
        released === undefined
          ? 'a request that breaks one rule gets the documented 4xx naming what to fix'
          : 'a request the version refuses gets an answer its document describes',
      property: fc.asyncProperty(
        fc.oneof(...requests.broken),
        excused((broken) => (released === undefined ? expectRefused : expectDescribed)(sender, broken)),
      ),
    },
    ...(requests.withBadKey === undefined
      ? []
      : [
          {
            name: 'a request without a valid key gets 401, whatever else is wrong with it',
            property: fc.asyncProperty(
              requests.withBadKey,
              excused((request) => expectUnauthorized(sender, request)),
            ),
          },
        ]),
  ];

  const whyUnanswered = (count: OperationCount) => {
    if (count.unmade !== undefined) return `no valid request could be generated: ${count.unmade}`;
    const statuses = [...count.statuses].map(([status, times]) => `${status} ×${times}`).join(', ');
    const needsLink = pathParameters(count.operationId) > 0 && !linked.has(count.operationId);
    const readOnlyNote = readOnly ? ' (read-only: it creates nothing, so the target must hold data)' : '';
    return (
      `none of its ${count.valid} valid requests got a 2xx (${statuses})` +
      (needsLink
        ? `; its path names a resource, and no link of ${contract.name} gave one from an answer of this run${readOnlyNote}`
        : '')
    );
  };
  const coverage = async (seed: number) => {
    for (const {
      operation: { operationId },
      valid,
    } of requests.made) {
      const count = counts.get(operationId)!;
      if (isRetired(operationId) || count.succeeded > 0) continue;
      const tries = fc.sample(valid, { seed, numRuns: COVERAGE_TRIES });
      for (const [index, generated] of tries.entries()) {
        if (count.succeeded > 0) break;
        await excused(checkValid)({ generated, pick: index, useLink: true });
      }
    }
    const unanswered = [...counts.values()]
      .filter((count) => count.succeeded === 0 && !isRetired(count.operationId))
      .map((count) => `${count.operationId} (${count.method} ${count.path}): ${whyUnanswered(count)}`);
    return { unanswered };
  };

  const readBacks: ReadBack[] = (plugin?.readBacks?.(context) ?? []).map((readBack) => ({
    ...readBack,
    name: `${readBack.name} [${plugin!.name}]`,
  }));

  return {
    properties,
    coverage,
    counts: () => [...counts.values()],
    readBacks,
    writes: () =>
      [...counts.values()]
        .filter((count) => !SAFE_METHODS.has(count.method.toLowerCase()))
        .reduce((sum, count) => sum + count.succeeded, 0),
  };
}

/** The version's own links, and those it lacks of the current spec's (the same link in both is followed once). */
function linksOfRun(spec: LiveOptions['contract']['spec'], name: string, more: readonly SpecLink[]): SpecLink[] {
  const linkKey = ({ from, status, to, parameters }: SpecLink) => JSON.stringify([from, status, to, parameters]);
  return [...new Map([...linksOf(spec, name), ...more].map((link) => [linkKey(link), link])).values()];
}
