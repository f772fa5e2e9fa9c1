// The Idempotency-Key request header of createPet (draft-ietf-httpapi-idempotency-key-header-07):
// what a key is, whose it is, and when a retry is "the same request". Its syntax is checked by the
// schema in openapi.yaml before a handler runs; this module only reads a value that passed it.
import type { NewPet, Pet } from '../types/api.js';

/** A client's key, within the scope of the client whose API key sent it. */
export interface IdempotencyKey {
  /** Whose key it is: the client's scope, a SHA-256 in hex (src/auth/key-table.ts, clientScopeOf). */
  scope: string;
  key: string;
}

/** A change's Idempotency-Key, and what identifies its request, so that a retry replays its response. */
export interface ChangeKey extends IdempotencyKey {
  /** The operation it was sent to: each operation's keys are apart. */
  operation: string;
  /** The operation and its request (the resource and body), as one text: the same key with another is refused. */
  request: string;
}

/**
 * A change key as one text, unique per client, operation and key: what the stores' records and
 * batch rounds tell keys apart by.
 */
export const changeKeyName = ({ scope, operation, key }: ChangeKey) => `${scope}:${operation}:${key}`;

export const DEFAULT_RETENTION_HOURS = 24;
export const HOUR_MS = 3_600_000;
/** The stores' default, as IDEMPOTENCY_RETENTION_HOURS' default (src/config.ts). */
export const DEFAULT_RETENTION_MS = DEFAULT_RETENTION_HOURS * HOUR_MS;

/** The key a header value names: a quoted Structured Field String and the bare key are the same key. */
export function keyOf(header: string): string {
  return header.charCodeAt(0) === 0x22 ? header.slice(1, -1) : header;
}

/**
 * Whether a retry's body is the request that created `pet`. Pets are stored exactly as sent and
 * never change, so the pet is the first request's parsed body plus its id: comparing values makes
 * whitespace, member order and number spelling (1e0, 1.0) irrelevant.
 */
export function isSameRequest(pet: Pet, body: NewPet): boolean {
  return pet.name === body.name && BigInt(pet.categoryId) === BigInt(body.categoryId) && pet.status === body.status;
}

/**
 * What identifies a change's request for its Idempotency-Key: the operation, the pet and the body,
 * with members in name order and numbers as their decimal text, so that spelling does not matter.
 */
export function changeRequestOf(operationId: string, petId: unknown, body?: Record<string, unknown>): string {
  const members =
    body === undefined
      ? []
      : Object.keys(body)
          .sort()
          .map((name) => [
            name,
            typeof body[name] === 'bigint' || typeof body[name] === 'number' ? String(body[name]) : body[name],
          ]);
  return JSON.stringify([operationId, String(petId), members]);
}
