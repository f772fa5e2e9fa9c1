// The service, built by tsc from src/ exactly as dist/ is, holding SEED_PETS pets.
// Started by scripts/bench.ts; prints {port, rss} when ready.
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadSpec } from '../../src/spec/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { reportReady, seedPets } from './seed-pets.js';

const store = createMemoryPetStore();
await seedPets(store, Number(process.env['SEED_PETS'] ?? 0));
// The compiled copy lives under dist-bench/, so the spec is named from the working directory.
const app = await buildApp({ apiKeys: [process.env['API_KEY']!], store, spec: loadSpec(resolve('openapi.yaml')) });
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as AddressInfo).port);
// A clean exit on SIGINT lets `node --cpu-prof` write its profile.
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
