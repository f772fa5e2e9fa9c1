// The in-memory store's pets, in columns (memory-pet-store.ts says why): adding one, reading one by
// index, a page in id order (filtered by status through a per-status column of indexes), and the
// moves of a pet's status between those columns.
import type { NewPet, Pet, PetId, PetPatch, PetStatus } from '../types/api.js';
import type { MemoryEventLog } from './memory-events.js';
import type { ListOptions, PetPage, VersionedPet } from './pet-store.js';

// A status code for a removed pet: its index stays taken, so its id is never reused.
export const REMOVED = 255;

export function createPetColumns(events: MemoryEventLog) {
  const names: string[] = [];
  const categoryIds: (number | bigint)[] = [];
  const versions = new GrowingColumn(Uint32Array);
  // 1 for a pet a create with an Idempotency-Key made, while its key is remembered.
  const keyed = new GrowingColumn(Uint8Array);
  // Status codes: 0 is "no status", n is statusNames[n - 1], REMOVED a removed pet.
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
  const versioned = (index: number): VersionedPet => ({ pet: pet(index), version: versions.data[index]! });

  const codeOf = (status: PetStatus): number => {
    let code = statusNames.indexOf(status) + 1;
    if (code === 0) {
      if (statusNames.length === REMOVED - 1)
        throw new Error(`the in-memory store holds at most ${REMOVED - 1} distinct statuses`);
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
    versions.push(1);
    keyed.push(0);
    if (status !== undefined) byStatus.get(status)!.push(index);
    events.append('pet.created', index + 1, 1, { name, categoryId, status });
    return index;
  };

  /** The index of the live pet with this id, or -1. */
  const indexOf = (id: PetId): number => {
    // Ids stay far inside the safe-integer range, so a bigint id never names a stored pet.
    if (typeof id !== 'number' || id < 1 || id > names.length || statusCodes.data[id - 1] === REMOVED) return -1;
    return id - 1;
  };

  const setStatus = (index: number, code: number) => {
    const old = statusCodes.data[index]!;
    if (old === code) return;
    if (old !== 0 && old !== REMOVED) byStatus.get(statusNames[old - 1]!)!.removeSorted(index);
    if (code !== 0 && code !== REMOVED) byStatus.get(statusNames[code - 1]!)!.insertSorted(index);
    statusCodes.data[index] = code;
  };

  const list = ({ limit, status, after }: ListOptions): PetPage => {
    const start = indexAfter(after, names.length);
    const pets: Pet[] = [];
    const petVersions: number[] = [];
    const take = (index: number) => {
      pets.push(pet(index));
      petVersions.push(versions.data[index]!);
    };
    let more: boolean;
    if (status === undefined) {
      // Removed pets are stepped over: a page costs what it returns plus the removed pets among them.
      let index = start;
      for (; index < names.length && pets.length < limit; index++) if (statusCodes.data[index] !== REMOVED) take(index);
      while (index < names.length && statusCodes.data[index] === REMOVED) index++;
      more = index < names.length;
    } else {
      const indexes = byStatus.get(status);
      const from = indexes === undefined ? 0 : firstAtLeast(indexes, start);
      const available = (indexes?.length ?? 0) - from;
      const count = Math.min(limit, available);
      for (let position = 0; position < count; position++) take(indexes!.data[from + position]!);
      more = available > count;
    }
    // The store's methods never await: the page and the feed's end are one moment.
    return { pets, versions: petVersions, more, position: events.latest };
  };

  /** Applies a merge patch; the version grows by one only when a value changes. */
  const applyPatch = (index: number, patch: PetPatch): VersionedPet => {
    const { name, categoryId, status } = patch;
    const code = status === undefined ? statusCodes.data[index]! : status === null ? 0 : codeOf(status);
    const changes =
      (name !== undefined && name !== names[index]) ||
      (categoryId !== undefined && BigInt(categoryId) !== BigInt(categoryIds[index]!)) ||
      code !== statusCodes.data[index];
    if (changes) {
      if (name !== undefined) names[index] = name;
      if (categoryId !== undefined) categoryIds[index] = categoryId;
      setStatus(index, code);
      versions.data[index]! += 1;
      events.append('pet.updated', index + 1, versions.data[index]!, {
        name: names[index],
        categoryId: categoryIds[index],
        status: code === 0 ? undefined : statusNames[code - 1],
      });
    }
    return versioned(index);
  };

  /** Removes the pet at `index`; its index stays taken. */
  const removeAt = (index: number): null => {
    setStatus(index, REMOVED);
    versions.data[index]! += 1;
    events.append('pet.deleted', index + 1, versions.data[index]!);
    // What a removed pet held is let go; its index stays taken.
    names[index] = '';
    categoryIds[index] = 0;
    return null;
  };

  /** The status of the live pet at `index`. */
  const statusOf = (index: number): PetStatus | undefined => {
    const code = statusCodes.data[index]!;
    return code === 0 ? undefined : statusNames[code - 1];
  };

  /** Whether a pet was ever given this id (it may have been removed since). */
  const wasAssigned = (id: PetId): boolean => typeof id === 'number' && id >= 1 && id <= names.length;

  /** The feed's newest seq: the position every read of the store is at. */
  const latest = () => events.latest;

  return { applyPatch, removeAt, versions, keyed, pet, versioned, add, indexOf, list, statusOf, wasAssigned, latest };
}

/** Pet n sits at index n - 1, so the pets after id `after` start at index `after`. */
function indexAfter(after: PetId | undefined, length: number): number {
  if (after === undefined) return 0;
  // Ids stay far inside the safe-integer range: a bigint is beyond every stored pet, or before all of them.
  if (typeof after === 'bigint') return after > 0n ? length : 0;
  return Math.min(Math.max(after, 0), length);
}

/** The first position in an ascending column whose value is at least `value`: a binary search, never a scan. */
function firstAtLeast(column: { readonly data: ArrayLike<number>; readonly length: number }, value: number): number {
  let low = 0;
  let high = column.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (column.data[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

type TypedArray = Uint8Array | Uint32Array | Int32Array;

/** A typed array that doubles its capacity when full. */
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

  /** Inserts into an ascending column, where it belongs (a move of the values after it: a memmove). */
  insertSorted(value: number) {
    const at = firstAtLeast(this, value);
    this.push(value);
    this.data.copyWithin(at + 1, at, this.length - 1);
    this.data[at] = value;
  }

  /** Removes a value from an ascending column that holds it. */
  removeSorted(value: number) {
    const at = firstAtLeast(this, value);
    this.data.copyWithin(at, at + 1, this.length);
    this.length -= 1;
  }
}
