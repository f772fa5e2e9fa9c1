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

/**
 * Where pets live. Async so that a persistent store can replace the in-memory one
 * without touching the handlers.
 */
export interface PetStore {
  /** Stores the pet and assigns it a new id: unique, increasing, never reused. */
  create(pet: NewPet): Promise<Pet>;
  /** The pet with this id, or null when there is none. */
  get(id: PetId): Promise<Pet | null>;
  /**
   * A page of pets in ascending id order: those after `after`, only those with `status` when it is
   * given. Its cost does not grow with the number of pets before `after`.
   */
  list(options: ListOptions): Promise<PetPage>;
  /** Whether the store can serve now (readiness); a store without it always can. */
  ready?(): Promise<boolean>;
}
