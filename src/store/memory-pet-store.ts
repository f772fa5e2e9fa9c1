import { changeKeyName, DEFAULT_RETENTION_MS, type IdempotencyKey } from '../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetPatch } from '../types/api.js';
import { DEFAULT_MAX_EVENTS, MemoryEventLog } from './memory-events.js';
import { DEFAULT_MAX_KEYS, MemoryIdempotencyKeys, type MemoryKeyOptions } from './memory-idempotency-keys.js';
import { createMemoryOrders } from './memory-orders.js';
import { createPetColumns } from './memory-pet-columns.js';
import { memoryWebhooks } from './memory-webhooks.js';
import type { ChangeKey, ChangeOutcome, ListOptions, PetStore, Precondition, VersionedPet } from './pet-store.js';
import type { ReadAt } from './read-at.js';

export type MemoryStoreOptions = Partial<Omit<MemoryKeyOptions, 'onForget'>> & {
  /** The most events the feed keeps (the oldest go first). */
  maxEvents?: number;
};

/**
 * Ids run 1, 2, 3… and a pet's index is id - 1; a removed pet keeps its index, marked removed.
 * Fields are kept in columns rather than one object per pet, statuses as one byte each (about
 * half the memory at a million pets; docs/performance/earlier-findings.md, "Earlier findings"), and every read builds
 * fresh Pet objects, so no caller can change what is stored. A per-status column of indexes in
 * id order lets a filtered list find where a page starts by binary search and read only what it
 * returns; a change of status moves the pet's index from one column to the other.
 *
 * Every method runs to its end without awaiting, so each is atomic: no other request runs between
 * a precondition's check and the change it guards.
 */
export function createMemoryPetStore({
  retentionMs = DEFAULT_RETENTION_MS,
  maxKeys = DEFAULT_MAX_KEYS,
  maxEvents = DEFAULT_MAX_EVENTS,
  now = Date.now,
}: MemoryStoreOptions = {}): PetStore {
  const events = new MemoryEventLog(maxEvents, now);
  const columns = createPetColumns(events);
  const { versions, keyed, pet, versioned, add, indexOf, statusOf } = columns;
  const orders = createMemoryOrders(columns, { retentionMs, maxKeys, now });

  // A create's key records the pet's index: a small integer, which costs the collector nothing. A
  // retry gets the pet as that create made it, so a keyed pet's first state is kept aside at its
  // first change (or removal), for as long as its key is remembered.
  const firstStates = new Map<number, Pet>();
  const forget = (index: number) => {
    keyed.data[index] = 0;
    firstStates.delete(index);
  };
  const keys = new MemoryIdempotencyKeys<number>({ retentionMs, maxKeys, now, onForget: forget });
  const asCreated = (index: number): Pet => {
    const first = firstStates.get(index);
    return first === undefined ? pet(index) : { ...first };
  };
  // The Idempotency-Keys of changes: the request each was recorded for, and its response.
  const changeKeys = new MemoryIdempotencyKeys<{ request: string; petId: PetId; response: VersionedPet | null }>({
    retentionMs,
    maxKeys,
    now,
  });

  /** Checks the key and the precondition, then changes the pet (`apply`) and records the key: one step. */
  const change = (
    id: PetId,
    precondition: Precondition,
    key: ChangeKey | undefined,
    apply: (index: number) => VersionedPet | null,
  ): ChangeOutcome => {
    orders.sweep();
    const scoped = key === undefined ? undefined : changeKeyName(key);
    if (scoped !== undefined) {
      const recorded = changeKeys.find(scoped);
      if (recorded !== undefined) {
        if (recorded.request !== key!.request) return { kind: 'reused', petId: recorded.petId };
        return {
          kind: 'replayed',
          pet:
            recorded.response === null
              ? null
              : { pet: { ...recorded.response.pet }, version: recorded.response.version },
        };
      }
    }
    const index = indexOf(id);
    if (index < 0) return { kind: 'missing' };
    const version = versions.data[index]!;
    if (precondition !== '*' && !precondition.includes(version)) return { kind: 'failed', version };
    if (keyed.data[index] === 1 && !firstStates.has(index)) firstStates.set(index, pet(index));
    const response = apply(index);
    if (scoped !== undefined)
      changeKeys.record(scoped, {
        request: key!.request,
        petId: id,
        response: response === null ? null : { pet: { ...response.pet }, version: response.version },
      });
    return { kind: 'changed', pet: response };
  };

  return {
    async create(newPet: NewPet) {
      return pet(add(newPet));
    },

    // Atomic as it is: nothing here awaits, so no other request runs between the look-up and the record.
    async createOnce(newPet: NewPet, { scope, key }: IdempotencyKey) {
      const scoped = `${scope}:${key}`;
      const recorded = keys.find(scoped);
      if (recorded !== undefined) return { pet: asCreated(recorded), replayed: true };
      const index = add(newPet);
      keyed.data[index] = 1;
      keys.record(scoped, index);
      return { pet: pet(index), replayed: false };
    },

    async get(id: PetId, at?: ReadAt) {
      orders.sweep();
      if (at !== undefined) at.position = events.latest;
      const index = indexOf(id);
      return index < 0 ? null : versioned(index);
    },

    async list(options: ListOptions) {
      orders.sweep();
      const page = columns.list(options);
      if (options.at !== undefined) options.at.position = page.position;
      return page;
    },

    async update(id: PetId, patch: PetPatch, precondition: Precondition, key?: ChangeKey) {
      return change(id, precondition, key, (index) => {
        const before = statusOf(index);
        const changed = columns.applyPatch(index, patch);
        if (statusOf(index) !== before) orders.statusChanged(index);
        return changed;
      });
    },

    async listEvents(after: number | undefined, limit: number, at?: ReadAt) {
      if (at !== undefined) at.position = events.latest;
      return events.page(after, limit);
    },

    async purgeEvents(olderThanMs: number) {
      return events.purge(olderThanMs);
    },

    orders: orders.orders,

    ...memoryWebhooks(events, now),

    epoch: () => events.epoch,

    writePosition: () => events.latest,

    async remove(id: PetId, precondition: Precondition, key?: ChangeKey) {
      return change(id, precondition, key, (index) => {
        orders.removed(index);
        return columns.removeAt(index);
      });
    },
  };
}
