import type { IdempotencyKey } from '../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';

export interface ListOptions {
  limit: number;
  status?: PetStatus | undefined;
  /** Only pets whose id is greater than this one: where the previous page ended (keyset pagination). */
  after?: PetId | undefined;
}

export interface PetPage {
  /** At most `limit` pets in ascending id order. */
  pets: Pet[];
  /** Whether pets of the same filter follow the last one in `pets`, at the time of reading. */
  more: boolean;
}

export interface CreatedOnce {
  /** The pet created by this call, or the one created by the first call with the same key. */
  pet: Pet;
  /** True when the key was already recorded: nothing was created, `pet` is the earlier one. */
  replayed: boolean;
}

/**
 * Where pets live. Async so that a persistent store can replace the in-memory one
 * without touching the handlers.
 */
export interface PetStore {
  /** Stores the pet and assigns it a new id: unique, increasing, never reused. */
  create(pet: NewPet): Promise<Pet>;
  /**
   * Creates the pet and records `key` with it, atomically, unless the key is recorded already: then
   * it creates nothing and returns the pet recorded with it, whatever `pet` holds (the caller
   * compares). A call made while the first call with the key is under way waits for it. A key is
   * recorded for at least the store's retention period.
   */
  createOnce(pet: NewPet, key: IdempotencyKey): Promise<CreatedOnce>;
  /** The pet with this id, or null when there is none. */
  get(id: PetId): Promise<Pet | null>;
  /**
   * A page of pets in ascending id order: those after `after`, only those with `status` when it is
   * given. Its cost does not grow with the number of pets before `after`.
   */
  list(options: ListOptions): Promise<PetPage>;
  /** Whether the store can serve now (readiness); a store without it always can. */
  ready?(): Promise<boolean>;
  /** Releases what the store holds (connections, timers); a store without it holds nothing. */
  close?(): Promise<void>;
}
