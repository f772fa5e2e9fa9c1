// Every test of the workspaces (src/contract/, src/client/, scripts/postgres/) but those that start
// processes (workspace-processes.test.ts), in one process (test/batches/batch.ts).
import { runBatch } from './batch.js';

runBatch(import.meta.filename);
