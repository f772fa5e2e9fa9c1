// A long run under a steady mixed load, to see memory, event-loop delay, file descriptors and
// database connections over time (docs/performance/soak.md, "Soak").
//   npm run bench -- soak --minutes 10 --store postgres
//   npm run bench -- soak --minutes 0.5 --store memory --check     (CI: exits 1 on unexplained growth)
// Exit status: 0, or 1 when --check finds growth beyond the stored pets, 2 when it could not run.
import { runSoak } from './run-soak.js';

process.exitCode = await runSoak(process.argv.slice(2));
