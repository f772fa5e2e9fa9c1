// The second, fourth, sixth… test file of test/store/, in one process (test/batches/batch.ts).
import { runBatch } from './batch.js';

runBatch(import.meta.filename);
