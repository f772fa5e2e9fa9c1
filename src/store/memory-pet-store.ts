import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';
import type { ListOptions, PetStore } from './pet-store.js';

/**
 * Pets are never updated or removed, so ids run 1, 2, 3… and the array index is id - 1.
 * A per-status array in the same order lets a filtered list read only what it returns.
 */
export function createMemoryPetStore(): PetStore {
  const pets: Pet[] = [];
  const byStatus = new Map<PetStatus, Pet[]>();

  return {
    async create({ name, categoryId, status }: NewPet) {
      const pet: Pet = Object.freeze(
        status === undefined ? { id: pets.length + 1, name, categoryId } : { id: pets.length + 1, name, categoryId, status },
      );
      pets.push(pet);
      if (status !== undefined) {
        const sameStatus = byStatus.get(status);
        if (sameStatus === undefined) byStatus.set(status, [pet]);
        else sameStatus.push(pet);
      }
      return pet;
    },

    async get(id: PetId) {
      // Ids stay far inside the safe-integer range, so a bigint id never names a stored pet.
      if (typeof id !== 'number' || id < 1) return null;
      return pets[id - 1] ?? null;
    },

    async list({ limit, status }: ListOptions) {
      const source = status === undefined ? pets : (byStatus.get(status) ?? []);
      return source.slice(0, limit);
    },
  };
}
