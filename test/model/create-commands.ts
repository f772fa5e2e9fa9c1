// The Pet Store's in-process commands that create pets, with and without an Idempotency-Key.
import {
  type ApiResponse,
  type ApiRequest,
  type BrokenRequest,
  ContractViolation,
  describe,
  inHeader,
  normalized,
  reformattedJson,
} from 'openapi-contract-engine';
import {
  added,
  expectTag,
  fc,
  keyOf,
  operation,
  type Model,
  type StoredPet,
  type Subject,
  checks,
  generators,
} from './model.js';
import { CLIENT_KEYS } from './subject.js';
import { isDeepStrictEqual } from 'node:util';

const { expectContract, expectEqual, expectError } = checks;
const { patternOf, validHeaderValue } = generators;

export class CreatePet implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly request: ApiRequest,
    readonly body: Record<string, unknown>,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const response = await subject.send(this.request);
    const expected: StoredPet = { id: model.nextId, ...(this.body as Omit<StoredPet, 'id'>) };
    if (response.statusCode !== 201) expectContract(this.request, response, ['expected 201']);
    expectEqual(this.request, response, expected, 'the created pet is what was sent, with the next id');
    expectTag(model, { request: this.request, response }, expected.id, 1);
    added(model, expected);
  }
  toString = () => `createPet ${String(this.request.payload)}`;
}

export const IDEMPOTENCY_KEY = inHeader(operation('createPet')).find(
  (parameter) => parameter.name === 'Idempotency-Key',
)!;
// A few values used again and again, so that retries and reuses are common, and any the schema allows.
export const idempotencyHeader = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('"k1"', 'k1', '"k2"', '"k 3"', '8e03978e-40d5-43e8-bc93-6894a57f9324') },
  { weight: 1, arbitrary: validHeaderValue(IDEMPOTENCY_KEY) },
);
export const keyedRequest = (request: ApiRequest, client: number, header: string): ApiRequest => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${CLIENT_KEYS[client]}`, 'idempotency-key': header },
});

/**
 * Checks the response to a keyed create against the model: a new key creates the next pet and is
 * recorded; a recorded key with the same body replays the first response; with another body, 422.
 */
export function expectKeyed(
  model: Model,
  { request, response }: { request: ApiRequest; response: ApiResponse },
  { client, header, body }: { client: number; header: string; body: Record<string, unknown> },
) {
  const scoped = `${client}:${keyOf(header)}`;
  const recorded = model.keys.get(scoped);
  if (recorded === undefined) {
    const pet: StoredPet = { id: model.nextId, ...(body as Omit<StoredPet, 'id'>) };
    if (response.statusCode !== 201 || response.headers['idempotent-replayed'] !== undefined)
      expectContract(request, response, ['expected 201, not a replay: a new key']);
    expectEqual(request, response, pet, 'a new key: the created pet is what was sent, with the next id');
    added(model, pet);
    model.keys.set(scoped, { body, pet, client, header });
  } else if (isDeepStrictEqual(normalized(body), normalized(recorded.body))) {
    if (response.statusCode !== 201 || response.headers['idempotent-replayed'] !== 'true')
      expectContract(request, response, ['expected a 201 replay (Idempotent-Replayed: true)']);
    expectEqual(request, response, recorded.pet, `a retry of key ${header}: the first answer's pet`);
    if (response.headers['location'] !== `/v1/pets/${recorded.pet.id}`)
      throw new ContractViolation(
        request,
        `${describe(request)}: a replay's Location must be the first answer's, /v1/pets/${recorded.pet.id}`,
      );
  } else {
    expectError(request, response, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', mentions: `pet ${recorded.pet.id}` });
  }
}

export class KeyedCreate implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly valid: { request: ApiRequest; body: Record<string, unknown> },
    readonly client: number,
    readonly header: string,
  ) {}
  check = () => true;
  async run(model: Model, subject: Subject) {
    const request = keyedRequest(this.valid.request, this.client, this.header);
    expectKeyed(
      model,
      { request, response: await subject.send(request) },
      { client: this.client, header: this.header, body: this.valid.body },
    );
  }
  toString = () =>
    `createPet by client ${this.client} with Idempotency-Key ${this.header}: ${String(this.valid.request.payload)}`;
}

/** Resends a recorded keyed create, its body spelt differently: members reversed, other spacing, either key form. */
export class RetryKeyed implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly pick: number,
    readonly otherForm: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.keys.size > 0;
  async run(model: Model, subject: Subject) {
    const recorded = [...model.keys.values()][this.pick % model.keys.size]!;
    const key = keyOf(recorded.header);
    // A key may be sent bare when the header's pattern accepts it unquoted.
    const header =
      this.otherForm && patternOf(IDEMPOTENCY_KEY).test(key)
        ? recorded.header.startsWith('"')
          ? key
          : `"${key}"`
        : recorded.header;
    const payload = reformattedJson(recorded.body);
    const request = keyedRequest(
      {
        operationId: 'createPet',
        method: 'POST',
        url: '/v1/pets',
        headers: { 'content-type': 'application/json' },
        payload,
      },
      recorded.client,
      header,
    );
    expectKeyed(
      model,
      { request, response: await subject.send(request) },
      { client: recorded.client, header, body: recorded.body },
    );
  }
  toString = () => `retry recorded key #${this.pick}${this.otherForm ? ', in the other form' : ''}`;
}

/** A keyed create refused for what it sends: it records nothing, so a later create with the key creates. */
export class BrokenKeyed implements fc.AsyncCommand<Model, Subject> {
  constructor(
    readonly broken: BrokenRequest,
    readonly client: number,
    readonly header: string,
  ) {}
  check = () => true;
  async run(_model: Model, subject: Subject) {
    const request = keyedRequest(this.broken.request, this.client, this.header);
    expectError(request, await subject.send(request), this.broken.expect);
  }
  toString = () => `broken createPet with Idempotency-Key ${this.header}: ${this.broken.rule}`;
}
