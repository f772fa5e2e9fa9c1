// The workspaces' tests that start processes of their own, in one process: test:all runs it, npm
// test does not (test/batches/batch.ts, WORKSPACE_PROCESS_TESTS).
import { runBatch } from './batch.js';

runBatch(import.meta.filename);
