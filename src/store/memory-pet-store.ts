import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';
import type { ListOptions, PetStore } from './pet-store.js';

/**
 * Pets are never updated or removed, so ids run 1, 2, 3… and a pet's index is id - 1.
 * Fields are kept in columns rather than one object per pet, statuses as one byte each (about
 * half the memory at a million pets; see the benchmark in the README), and every read builds
 * fresh Pet objects, so no caller can change what is stored. A per-status column of indexes in
 * id order lets a filtered list read only what it returns.
 */
export function createMemoryPetStore(): PetStore {
  const names: string[] = [];
  const categoryIds: (number | bigint)[] = [];
  // Status codes: 0 is "no status", n is statusNames[n - 1].
  const statusCodes = new GrowingColumn(Uint8Array);
  const statusNames: PetStatus[] = [];
  const byStatus = new Map<PetStatus, GrowingColumn<Int32Array>>();

  const pet = (index: number): Pet => {
    const code = statusCodes.data[index]!;
    const id = index + 1;
    return code === 0
      ? { id, name: names[index]!, categoryId: categoryIds[index]! }
      : { id, name: names[index]!, categoryId: categoryIds[index]!, status: statusNames[code - 1]! };
  };

  const codeOf = (status: PetStatus): number => {
    let code = statusNames.indexOf(status) + 1;
    if (code === 0) {
      if (statusNames.length === 255) throw new Error('the in-memory store holds at most 255 distinct statuses');
      code = statusNames.push(status);
      byStatus.set(status, new GrowingColumn(Int32Array));
    }
    return code;
  };

  return {
    async create({ name, categoryId, status }: NewPet) {
      const index = names.length;
      const code = status === undefined ? 0 : codeOf(status);
      names.push(name);
      categoryIds.push(categoryId);
      statusCodes.push(code);
      if (status !== undefined) byStatus.get(status)!.push(index);
      return pet(index);
    },

    async get(id: PetId) {
      // Ids stay far inside the safe-integer range, so a bigint id never names a stored pet.
      if (typeof id !== 'number' || id < 1 || id > names.length) return null;
      return pet(id - 1);
    },

    async list({ limit, status }: ListOptions) {
      const indexes = status === undefined ? undefined : byStatus.get(status);
      const count = Math.min(limit, status === undefined ? names.length : (indexes?.length ?? 0));
      const pets = new Array<Pet>(count);
      for (let position = 0; position < count; position++) pets[position] = pet(indexes === undefined ? position : indexes.data[position]!);
      return pets;
    },
  };
}

type TypedArray = Uint8Array | Int32Array;

/** An append-only typed array that doubles its capacity when full. */
class GrowingColumn<T extends TypedArray> {
  data: T;
  length = 0;

  constructor(private readonly Type: new (length: number) => T) {
    this.data = new Type(1024);
  }

  push(value: number) {
    if (this.length === this.data.length) {
      const bigger = new this.Type(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
}
