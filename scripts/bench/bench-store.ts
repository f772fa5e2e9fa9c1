// The store both benchmark servers use: with DATABASE_URL, the PostgreSQL store on a database the
// runner has migrated and seeded (scripts/bench/postgres-database.ts), configured as src/server.ts
// configures it; else the in-memory store holding SEED_PETS pets.
import { readConfig } from '../../src/config.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { poolConfigOf, replicaOptionsOf } from '../../src/store/postgres/pool-config.js';
import { createPostgresPetStore } from '../../src/store/postgres/postgres-pet-store.js';
import { seedPets } from './seed-pets.js';

export async function benchStore(): Promise<PetStore> {
  const { database } = readConfig(process.env);
  if (database !== undefined) {
    const store = createPostgresPetStore(poolConfigOf(database), {
      maxWriteBatch: database.writeBatchMax,
      replicas: replicaOptionsOf(database),
    });
    // What its entity tags and event ids are tied to, as the service reads it once migrated (start.ts).
    await store.readEpoch();
    return store;
  }
  const store = createMemoryPetStore();
  await seedPets(store, Number(process.env['SEED_PETS'] ?? 0));
  return store;
}
