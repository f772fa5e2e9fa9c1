import { DEFAULT_RETENTION_MS, type IdempotencyKey } from '../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';
import { DEFAULT_MAX_KEYS, MemoryIdempotencyKeys, type MemoryKeyOptions } from './memory-idempotency-keys.js';
import type { ListOptions, PetStore } from './pet-store.js';

export type MemoryStoreOptions = Partial<MemoryKeyOptions>;

/**
 * Pets are never updated or removed, so ids run 1, 2, 3… and a pet's index is id - 1.
 * Fields are kept in columns rather than one object per pet, statuses as one byte each (about
 * half the memory at a million pets; docs/performance.md, "Earlier findings"), and every read builds
 * fresh Pet objects, so no caller can change what is stored. A per-status column of indexes in
 * id order lets a filtered list find where a page starts by binary search and read only what it
 * returns.
 */
export function createMemoryPetStore({ retentionMs = DEFAULT_RETENTION_MS, maxKeys = DEFAULT_MAX_KEYS, now = Date.now }: MemoryStoreOptions = {}): PetStore {
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

  const add = ({ name, categoryId, status }: NewPet): number => {
    const index = names.length;
    const code = status === undefined ? 0 : codeOf(status);
    names.push(name);
    categoryIds.push(categoryId);
    statusCodes.push(code);
    if (status !== undefined) byStatus.get(status)!.push(index);
    return index;
  };
  const keys = new MemoryIdempotencyKeys({ retentionMs, maxKeys, now });

  return {
    async create(newPet: NewPet) {
      return pet(add(newPet));
    },

    // Atomic as it is: nothing here awaits, so no other request runs between the look-up and the record.
    async createOnce(newPet: NewPet, { scope, key }: IdempotencyKey) {
      const scoped = `${scope}:${key}`;
      const recorded = keys.find(scoped);
      if (recorded !== undefined) return { pet: pet(recorded), replayed: true };
      const index = add(newPet);
      keys.record(scoped, index);
      return { pet: pet(index), replayed: false };
    },

    async get(id: PetId) {
      // Ids stay far inside the safe-integer range, so a bigint id never names a stored pet.
      if (typeof id !== 'number' || id < 1 || id > names.length) return null;
      return pet(id - 1);
    },

    async list({ limit, status, after }: ListOptions) {
      const start = indexAfter(after, names.length);
      const indexes = status === undefined ? undefined : byStatus.get(status);
      const from = indexes === undefined ? start : firstAtLeast(indexes, start);
      const available = (status === undefined ? names.length : (indexes?.length ?? 0)) - from;
      const count = Math.min(limit, available);
      const pets = new Array<Pet>(count);
      for (let position = 0; position < count; position++) pets[position] = pet(indexes === undefined ? from + position : indexes.data[from + position]!);
      return { pets, more: available > count };
    },
  };
}

/** Pet n sits at index n - 1, so the pets after id `after` start at index `after`. */
function indexAfter(after: PetId | undefined, length: number): number {
  if (after === undefined) return 0;
  // Ids stay far inside the safe-integer range: a bigint is beyond every stored pet, or before all of them.
  if (typeof after === 'bigint') return after > 0n ? length : 0;
  return Math.min(Math.max(after, 0), length);
}

/** The first position in an ascending column whose value is at least `value`: a binary search, never a scan. */
function firstAtLeast(column: GrowingColumn<Int32Array>, value: number): number {
  let low = 0;
  let high = column.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (column.data[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
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
