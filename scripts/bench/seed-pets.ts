// The pets both benchmark servers hold: the same data, in the same in-memory store, so that only
// the HTTP layer differs. One pet in 100 is "sold", the status the filtered workload asks for.
import type { PetStore } from '../../src/store/pet-store.js';

export const RARE_STATUS = 'sold';
const COMMON = ['available', 'pending', undefined] as const;

export async function seedPets(store: PetStore, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const status = index % 100 === 99 ? RARE_STATUS : COMMON[index % 3];
    const pet = { name: `pet ${index}`, categoryId: index % 1000 };
    await store.create(status === undefined ? pet : { ...pet, status });
  }
}

/** Tells the benchmark runner the port and the resident memory once seeding is done. */
export function reportReady(port: number): void {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(`${JSON.stringify({ port, rss: process.memoryUsage().rss })}\n`);
}
