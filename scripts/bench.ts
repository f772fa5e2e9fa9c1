// npm run bench: the benchmark's tables by default, and the other measures by name. Each reads the
// arguments after its name.
//   npm run bench                       the tables (scripts/bench/tables.ts: the service against a
//                                       hand-written fastify app; docs/performance.md)
//   npm run bench -- gate               instructions per request within scripts/bench/instruction-bounds.json
//   npm run bench -- profile            instructions per function, of one workload (callgrind)
//   npm run bench -- client             the typed client's cost per call
//   npm run bench -- soak --minutes 10 --store postgres
//                                       a long run under a steady load: memory, delay, descriptors
const COMMANDS: Record<string, string> = {
  gate: './bench/instruction-gate.js',
  profile: './bench/profile-functions.js',
  client: './bench/client.js',
  soak: './soak/soak.js',
};

const chosen = COMMANDS[String(process.argv[2])];
// The measure's own arguments follow its name.
if (chosen !== undefined) process.argv.splice(2, 1);
await import(chosen ?? './bench/tables.js');
