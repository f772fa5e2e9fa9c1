// The Pet Store's in-process commands that change and remove pets, and those that are refused.
import { type ApiRequest, type BrokenRequest, describe, normalized } from 'openapi-contract-engine';
import { API_KEY, checks, expectTag, fc, tagOf, type Model, type StoredPet, type Subject } from './model.js';
import { isDeepStrictEqual } from 'node:util';

const { expectContract, expectEqual, expectError, expectRefused, expectUnauthorized } = checks;

/** How a change names the version it expects: the current tag, a stale one, any ('*'), or none. */
export type TagChoice = 'current' | 'stale' | '*' | 'none';
export const tagChoice = fc.constantFrom<TagChoice>('current', 'current', 'stale', '*', 'none');

/**
 * The pet a change targets: a stored one when there is one, else (or when `removed`) a removed one, else the generated
 * id.
 */
export function target(
  model: Model,
  request: ApiRequest,
  pick: number,
  removed: boolean,
): { request: ApiRequest; id: bigint } {
  const ids =
    removed && model.removed.length > 0 ? model.removed : model.pets.length > 0 ? model.pets.map((pet) => pet.id) : [];
  const chosen = ids.length > 0 ? ids[pick % ids.length]! : undefined;
  const url = chosen === undefined ? request.url : request.url.replace(/\/[^/?]*$/, `/${chosen}`);
  return { request: { ...request, url }, id: BigInt(decodeURIComponent(/[^/]*$/.exec(url)![0])) };
}

/**
 * A tag that must not match pet `id` now: one it had at an earlier version, else another pet's (a
 * tag misapplied), else one the service never issued.
 */
function staleTag(model: Model, id: bigint, version: number | undefined): string {
  for (let earlier = (version ?? 1) - 1; earlier >= 1; earlier -= 1) {
    const tag = tagOf(model, id, earlier);
    if (tag !== undefined) return tag;
  }
  for (const [state, tag] of model.tags) if (!state.startsWith(`${id}@`)) return tag;
  return '"never-issued"';
}

/** The pet's current tag: as a response gave it, else as getPet gives it now (pets stored before the commands). */
async function currentTag(model: Model, subject: Subject, stored: StoredPet, version: number): Promise<string> {
  const known = tagOf(model, stored.id, version);
  if (known !== undefined) return known;
  const request: ApiRequest = {
    operationId: 'getPet',
    method: 'GET',
    url: `/v1/pets/${stored.id}`,
    headers: { authorization: `Bearer ${API_KEY}` },
  };
  const response = await subject.send(request);
  expectEqual(request, response, stored, 'the stored pet');
  expectTag(model, { request, response }, stored.id, version);
  return tagOf(model, stored.id, version)!;
}

/**
 * Sends a change with the If-Match `choice` says; checks a rejection (428, 404, 412) and returns the stored pet it
 * changes, if it may.
 */
async function sendChange(
  { model, subject }: { model: Model; subject: Subject },
  base: ApiRequest,
  id: bigint,
  choice: TagChoice,
) {
  const stored = model.pets.find((pet) => BigInt(pet.id) === id);
  const version = stored === undefined ? undefined : model.versions.get(String(stored.id))!;
  const ifMatch =
    choice === 'none'
      ? undefined
      : choice === '*'
        ? '*'
        : choice === 'stale'
          ? staleTag(model, id, version)
          : stored === undefined
            ? '"1"'
            : await currentTag(model, subject, stored, version!);
  const request = { ...base, headers: { ...base.headers, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) } };
  const response = await subject.send(request);
  if (ifMatch === undefined)
    return (
      expectError(request, response, { status: 428, code: 'PRECONDITION_REQUIRED', mentions: 'If-Match' }),
      undefined
    );
  if (stored === undefined)
    return (expectError(request, response, { status: 404, code: 'PET_NOT_FOUND', mentions: String(id) }), undefined);
  if (choice === 'stale') {
    if (response.statusCode === 412) expectTag(model, { request, response }, id, version!);
    const current = tagOf(model, id, version!) ?? 'its current tag';
    expectError(request, response, { status: 412, code: 'PRECONDITION_FAILED', mentions: current });
    return undefined;
  }
  return { request, response, stored, version: version! };
}

/** updatePet: a merge patch of a stored (or removed, or made-up) pet, with a current, stale, '*' or no If-Match. */
export class UpdatePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly valid: { request: ApiRequest; body: Record<string, unknown> },
    readonly pick: number,
    readonly removed: boolean,
    readonly choice: TagChoice,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const { request, id } = target(model, this.valid.request, this.pick, this.removed);
    const sent = await sendChange({ model, subject }, request, id, this.choice);
    if (sent === undefined) return;
    const changed: StoredPet = { ...sent.stored };
    for (const [name, value] of Object.entries(this.valid.body)) {
      if (value === null) delete (changed as unknown as Record<string, unknown>)[name];
      else (changed as unknown as Record<string, unknown>)[name] = value;
    }
    if (sent.response.statusCode !== 200) expectContract(sent.request, sent.response, ['expected 200']);
    expectEqual(sent.request, sent.response, changed, 'the pet with the patch applied');
    const version = isDeepStrictEqual(normalized(changed), normalized(sent.stored)) ? sent.version : sent.version + 1;
    expectTag(model, sent, changed.id, version);
    model.pets[model.pets.indexOf(sent.stored)] = changed;
    model.versions.set(String(changed.id), version);
  }
  toString = () =>
    `updatePet ${this.removed ? 'a removed pet' : `pet #${this.pick}`} with If-Match ${this.choice}: ${String(this.valid.request.payload)}`;
}

/** deletePet: a stored (or removed, or made-up) pet, with a current, stale, '*' or no If-Match. */
export class DeletePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly pick: number,
    readonly removed: boolean,
    readonly choice: TagChoice,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const { request, id } = target(model, this.request, this.pick, this.removed);
    const sent = await sendChange({ model, subject }, request, id, this.choice);
    if (sent === undefined) return;
    if (sent.response.statusCode !== 204) expectContract(sent.request, sent.response, ['expected 204']);
    model.pets.splice(model.pets.indexOf(sent.stored), 1);
    model.versions.delete(String(sent.stored.id));
    model.removed.push(sent.stored.id);
  }
  toString = () => `deletePet ${this.removed ? 'a removed pet' : `pet #${this.pick}`} with If-Match ${this.choice}`;
}

export class Broken implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly broken: BrokenRequest) {}
  check = () => true;
  async run(_model: Model, subject: Subject) {
    // The model is left as it is: a refused request must change nothing, which later commands check.
    await expectRefused(subject, this.broken);
  }
  toString = () => `broken: ${this.broken.rule}: ${describe(this.broken.request)}`;
}

export class Unauthorized implements fc.AsyncCommand<Model, Subject> {
  constructor(readonly request: ApiRequest) {}
  check = () => true;
  run = (_model: Model, subject: Subject) => expectUnauthorized(subject, this.request);
  toString = () => `unauthorized: ${describe(this.request)}`;
}

// A count and a short pattern of pets repeated to that count: cheap to shrink, unlike 250 separate pets.
