import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';

export interface ListOptions {
  limit: number;
  status?: PetStatus | undefined;
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
  /** At most `limit` pets in ascending id order, only those with `status` when it is given. */
  list(options: ListOptions): Promise<Pet[]>;
}
