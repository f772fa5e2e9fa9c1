// Every test of the workspaces (src/contract/, src/client/, scripts/postgres/), in one process
// (test/batches/batch.ts).
import { runBatch } from './batch.js';

runBatch(import.meta.filename);
