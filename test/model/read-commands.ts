// The Pet Store's in-process commands that read: pages, next links, whole filters, one pet.
import { type ApiResponse, type ApiRequest, ContractViolation, describe, nextTarget } from 'openapi-contract-engine';
import { keptNextPage } from 'petstore-contract-plugin';
import {
  API_KEY,
  DEFAULT_LIMIT,
  expectTag,
  expectTagOf,
  fc,
  type Model,
  type NextLink,
  type Subject,
  checks,
} from './model.js';

const { expectContract, expectEqual, expectError } = checks;

/**
 * Checks a page against the model: the pets of the filter after `after`, at most `limit`, and a next
 * link exactly when more follow, carrying the same limit and status. Returns that link.
 */
export function expectPage(
  model: Model,
  request: ApiRequest,
  response: ApiResponse,
  page: { limit: number; status: unknown; after?: number | bigint },
): NextLink | undefined {
  const { limit, status, after } = page;
  const matching = model.pets.filter(
    (pet) => (status === undefined || pet.status === status) && (after === undefined || BigInt(pet.id) > BigInt(after)),
  );
  if (response.statusCode !== 200) expectContract(request, response, ['expected 200']);
  const what = `the first ${limit} pets${status === undefined ? '' : ` with status ${String(status)}`}${after === undefined ? '' : ` after id ${after}`}, in id order`;
  expectEqual(request, response, matching.slice(0, limit), what);
  const shown = matching.slice(0, limit);
  const header = response.headers['pet-etags'];
  const tags = typeof header === 'string' ? header.split(', ') : [];
  if (tags.length !== shown.length)
    throw new ContractViolation(
      request,
      `${describe(request)}: Pet-ETags ${String(header)}, expected one tag for each of ${shown.length} pets`,
    );
  shown.forEach((pet, index) =>
    expectTagOf(model, request, tags[index], {
      id: pet.id,
      version: model.versions.get(String(pet.id))!,
      where: `Pet-ETags' tag ${index + 1}`,
    }),
  );
  const link = response.headers['link'];
  const more = matching.length > limit;
  if (!more) {
    if (link !== undefined)
      throw new ContractViolation(
        request,
        `${describe(request)}: ${what}: nothing more follows, yet the answer links to a next page: ${String(link)}`,
      );
    return undefined;
  }
  if (nextTarget(link) === undefined)
    throw new ContractViolation(
      request,
      `${describe(request)}: ${what}: more pets follow, yet there is no next link (Link: ${String(link)})`,
    );
  const resolved = keptNextPage(link, `http://127.0.0.1${request.url}`, { limit, status });
  if (resolved === undefined) {
    throw new ContractViolation(
      request,
      `${describe(request)}: the next link ${nextTarget(link)} does not keep the path, limit ${limit} and status ${String(status)}`,
    );
  }
  return { url: resolved.pathname + resolved.search, limit, status, after: matching[limit - 1]!.id };
}

export class ListPets implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly query: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const response = await subject.send(this.request);
    const link = expectPage(model, this.request, response, {
      limit: Number(this.query['limit'] ?? DEFAULT_LIMIT),
      status: this.query['status'],
    });
    if (link !== undefined) model.links.push(link);
  }
  toString = () => `listPets ${this.request.url}`;
}

/** Follows a next link an earlier response carried, perhaps after other pets were created since. */
export class FollowLink implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.links.length > 0;
  async run(model: Model, subject: Subject) {
    const link = model.links[this.pick % model.links.length]!;
    const request = linkRequest(link);
    const next = expectPage(model, request, await subject.send(request), link);
    if (next !== undefined) model.links.push(next);
  }
  toString = () => `follow next link #${this.pick}`;
}

/** Reads a whole filter from its first page through every next link. */
export class WalkPages implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly query: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const limit = Number(this.query['limit'] ?? DEFAULT_LIMIT);
    const status = this.query['status'];
    const matching = model.pets.filter((pet) => status === undefined || pet.status === status);
    let link = expectPage(model, this.request, await subject.send(this.request), { limit, status });
    let pages = 1;
    while (link !== undefined) {
      if (++pages > Math.ceil(matching.length / limit))
        throw new ContractViolation(
          this.request,
          `${describe(this.request)}: more than ${pages - 1} pages for ${matching.length} pets, ${limit} a page`,
        );
      const request = linkRequest(link);
      link = expectPage(model, request, await subject.send(request), link);
    }
  }
  toString = () => `walk every page from ${this.request.url}`;
}

export function linkRequest(link: NextLink): ApiRequest {
  return { operationId: 'listPets', method: 'GET', url: link.url, headers: { authorization: `Bearer ${API_KEY}` } };
}

export class GetPet implements fc.AsyncCommand<Model, Subject> {
  /** `pick` chooses a stored pet when there is one; `request` is used as it is otherwise or when `any`. */
  constructor(
    readonly request: ApiRequest,
    readonly pick: number,
    readonly any: boolean,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    let request = this.request;
    if (!this.any && model.pets.length > 0) {
      const id = model.pets[this.pick % model.pets.length]!.id;
      request = { ...request, url: request.url.replace(/[^/]*$/, String(id)) };
    }
    const response = await subject.send(request);
    const id = BigInt(decodeURIComponent(/[^/]*$/.exec(request.url)![0]));
    const stored = model.pets.find((pet) => BigInt(pet.id) === id);
    if (stored === undefined)
      expectError(request, response, { status: 404, code: 'PET_NOT_FOUND', mentions: String(id) });
    else {
      expectEqual(request, response, stored, 'the stored pet');
      expectTag(model, { request, response }, stored.id, model.versions.get(String(stored.id))!);
    }
  }
  toString = () => `getPet ${this.any ? this.request.url : `stored pet #${this.pick}`}`;
}
