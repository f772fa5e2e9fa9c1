// The pets both benchmark servers hold: the same data, in the same in-memory store, so that only
// the HTTP layer differs. One pet in 100 is "sold", the status the filtered workload asks for.
import type { PetStore } from '../../src/store/pet-store.js';

export const RARE_STATUS = 'sold';
const COMMON = ['available', 'pending', undefined] as const;

// Creates go out in batches: awaiting each one made seeding churn enough garbage to grow V8's
// young generation by ~50 MB, which showed up as 50 B of RSS per pet that no pet uses.
const BATCH = 10_000;

export async function seedPets(store: PetStore, count: number): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    const batch: Promise<unknown>[] = [];
    for (let index = start; index < Math.min(count, start + BATCH); index++) batch.push(store.create(seedPet(index)));
    await Promise.all(batch);
  }
}

/** The pet number `index` (from 0) of the benchmark's pets. */
export function seedPet(index: number): {
  name: string;
  categoryId: number;
  status?: 'available' | 'pending' | 'sold';
} {
  const status = index % 100 === 99 ? RARE_STATUS : COMMON[index % 3];
  const name = `pet ${index}`;
  const categoryId = index % 1000;
  return status === undefined ? { name, categoryId } : { name, categoryId, status };
}

/** Tells the benchmark runner the port and the resident memory once seeding is done. */
export function reportReady(port: number): void {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(`${JSON.stringify({ port, rss: process.memoryUsage().rss })}\n`);
}
