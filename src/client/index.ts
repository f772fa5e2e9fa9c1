// petstore-client: a typed client of the Pet Store API, generated from openapi.yaml
// (generated/client-api.ts) on this small runtime (call.ts). `npm pack -w petstore-client` packs it.
import { bindOperations, type components, type PetstoreOperations } from '../../generated/client-api.js';
import { createCall, type Logger, type Loose } from './call.js';

export interface ClientOptions {
  /** The deployment's base URL, `/v1` included: `https://api.petstore.example/v1`. */
  baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Where deprecation warnings go; console by default. */
  logger?: Logger;
  /** Retries of a call that is safe to repeat, after a 502, 503, 504, a lost connection or a timeout (default 2). */
  maxRetries?: number;
  /** How long one attempt may wait for its whole response (default 10,000 ms). */
  timeoutMs?: number;
  /** The fetch to send with (globalThis.fetch by default). */
  fetch?: typeof fetch;
  /**
   * Send the highest `Store-Position` any answer carried with every read that takes one, so that no
   * read shows an older state than one this client has seen (default true).
   */
  readYourWrites?: boolean;
}

export type PetstoreClient = PetstoreOperations;

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 10_000;

export function createClient(options: ClientOptions): PetstoreClient {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError(`maxRetries must be a whole number, 0 or more, not ${maxRetries}`);
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be more than 0, not ${timeoutMs}`);
  return bindOperations(
    createCall({
      baseUrl: String(options.baseUrl),
      apiKey: options.apiKey,
      logger: options.logger ?? console,
      maxRetries,
      timeoutMs,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      readYourWrites: options.readYourWrites ?? true,
    }),
  );
}

export {
  API_VERSION,
  ERROR_CODES,
  type ErrorCode,
  type components,
  type operations,
} from '../../generated/client-api.js';
export type { NumberPlaces } from './call-types.js';
export {
  responseOf,
  type CallOptions,
  type KeyedCallOptions,
  type Logger,
  type Loose,
  type Page,
  type Paginated,
  type ResponseInfo,
} from './call.js';
export { PetstoreConnectionError, PetstoreError, PetstoreResponseError } from './errors.js';
export { changePet, DEFAULT_CHANGE_ATTEMPTS, type ChangePetOptions } from './change-pet.js';
export { DEFAULT_FOLLOW_WAIT_S, followPetEvents, type FollowOptions } from './follow-pet-events.js';
export { verifyDelivery, WebhookVerificationError, type VerifyOptions } from './verify-delivery.js';

/** A pet as the client returns it: int64 fields as bigint. */
export type Pet = components['schemas']['Pet'];
/** A pet to create, as createPet takes it: int64 fields as a bigint or a number up to 2^53. */
export type NewPet = Loose<components['schemas']['NewPet']>;
/** One change to one pet, as the feed and the webhooks carry it: int64 fields as bigint. */
export type PetEvent = components['schemas']['PetEvent'];
/** A change to a pet, as updatePet takes it (a JSON Merge Patch: `status: null` removes the status). */
export type PetPatch = Loose<components['schemas']['PetPatch']>;
