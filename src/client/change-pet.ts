// A change that loses no one else's: read the pet, decide the patch from what was read, send it
// with the pet's ETag in If-Match; when someone changed the pet in between (412), read it again and
// decide again, a bounded number of times. The same loop as Kubernetes' retry-on-conflict.
import type { components, PetstoreOperations } from '../../generated/client-api.js';
import { responseOf, type CallOptions, type Loose } from './call.js';
import { PetstoreError } from './errors.js';

type Pet = components['schemas']['Pet'];
type PetPatch = Loose<components['schemas']['PetPatch']>;

export interface ChangePetOptions extends CallOptions {
  /** How many times the patch is sent at most: once, and again after each 412 (default 5). */
  attempts?: number;
  /** The pet as the caller has it already, with its ETag (from a list page's Pet-ETags): the first read is skipped. */
  known?: { pet: Pet; etag: string };
}

export const DEFAULT_CHANGE_ATTEMPTS = 5;

/**
 * Changes a pet with `decide(pet)`, a merge patch of the pet as read (undefined: nothing to change).
 * Resolves to the pet as stored afterwards; rejects with the last 412 when every attempt met another
 * writer's change, and with any other error at once (404 once the pet is removed).
 */
export async function changePet(
  client: PetstoreOperations,
  petId: bigint | number,
  decide: (pet: Pet) => PetPatch | undefined,
  options: ChangePetOptions = {},
): Promise<Pet> {
  const attempts = options.attempts ?? DEFAULT_CHANGE_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError(`attempts must be a whole number, 1 or more, not ${attempts}`);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  let current = options.known;
  for (let attempt = 1; ; attempt++) {
    if (current === undefined) {
      const pet = await client.getPet(petId, signal);
      current = { pet, etag: responseOf(pet)!.headers.get('etag')! };
    }
    const patch = decide(current.pet);
    if (patch === undefined) return current.pet;
    try {
      return await client.updatePet(petId, patch, { ...signal, ifMatch: current.etag });
    } catch (error) {
      if (!(error instanceof PetstoreError) || error.status !== 412 || attempt >= attempts) throw error;
      current = undefined;
    }
  }
  /* c8 ignore next -- the loop ends only by return or throw */
}
