// The soak's summary after warm-up, and what --check calls a leak (docs/performance/soak.md, "Soak"):
// apart from the run, so that the judgement is tested on rows of its own (test/tooling/soak-check.test.ts).

/**
 * What one stored pet may cost the in-memory store, in heap bytes, before --check calls growth
 * unexplained: the pet, its place in the store's indexes, and an Idempotency-Key record for a
 * keyed create (kept up to 100,000). Measured at about 210 bytes (docs/performance/soak.md, "Soak").
 */
export const PET_BYTES_BOUND = 1_000;
/** DATABASE_POOL_MAX's default, which the soak's instance runs with. */
export const POOL_MAX = 10;
/** Growth after warm-up that --check tolerates beyond what the pets explain. */
export const TOLERANCE = 0.1;

export interface Sample {
  seconds: number;
  requests: number;
  failed: number;
  rss: number;
  heapUsed: number;
  external: number;
  eventLoopDelayP99Ms: number;
  fds: number;
  databaseConnections: number | undefined;
  pets: number;
}

/**
 * Logs the summary of the rows after warm-up; returns the exit status: 0, or with `check` 1 when a
 * request failed or something grew that the stored pets do not explain (each problem named).
 */
export function summarize(
  samples: Sample[],
  { warmUpMs, store, check }: { warmUpMs: number; store: string; check: boolean },
  log: (line: string) => void,
): number {
  const after = samples.filter((sample) => sample.seconds * 1000 >= warmUpMs);
  const first = after[0];
  const last = after.at(-1);
  if (first === undefined || last === undefined || first === last) {
    log('summary: too short for a summary after warm-up');
    return check ? 1 : 0;
  }
  const change = (from: number, to: number) => `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)}%`;
  const pets = last.pets - first.pets;
  const heapGrowth = last.heapUsed - first.heapUsed;
  const failed = last.failed;
  const lines = [
    `summary after warm-up (${first.seconds} s to ${last.seconds} s): ${last.requests - first.requests} requests, ${failed} failed in all, ${pets} pets stored`,
    `  RSS ${mb(first.rss)} → ${mb(last.rss)} MB (${change(first.rss, last.rss)}), max ${mb(Math.max(...after.map((sample) => sample.rss)))} MB`,
    `  heap after GC ${mb(first.heapUsed)} → ${mb(last.heapUsed)} MB (${change(first.heapUsed, last.heapUsed)})${pets > 0 ? `: ${Math.round(heapGrowth / pets)} bytes per stored pet` : ''}`,
    `  external (buffers and other native memory of JavaScript objects) ${mb(first.external)} → ${mb(last.external)} MB`,
    `  event-loop delay p99: at most ${Math.max(...after.map((sample) => sample.eventLoopDelayP99Ms)).toFixed(2)} ms`,
    `  file descriptors ${Math.min(...after.map((sample) => sample.fds))}–${Math.max(...after.map((sample) => sample.fds))}`,
    ...(first.databaseConnections === undefined
      ? []
      : [
          `  database connections ${Math.min(...after.map((sample) => sample.databaseConnections!))}–${Math.max(...after.map((sample) => sample.databaseConnections!))}`,
        ]),
  ];
  for (const line of lines) log(line);
  if (!check) return 0;

  // What the stored pets explain: nothing for PostgreSQL, at most PET_BYTES_BOUND each in memory.
  const explained = store === 'memory' ? pets * PET_BYTES_BOUND : 0;
  const problems: string[] = [];
  if (failed > 0) problems.push(`${failed} requests failed`);
  // What the process holds for its objects: the heap after a full GC, and the native memory those
  // objects own (external: Buffers, sockets' and zlib's C++ state). A leak in JavaScript or in a
  // Buffer shows here, and keeps what it took.
  const heldGrowth = heapGrowth + (last.external - first.external);
  if (heldGrowth > explained + TOLERANCE * (first.heapUsed + first.external))
    problems.push(
      `the heap and external memory grew by ${mb(heldGrowth)} MB, more than ${mb(explained)} MB for ${pets} pets plus ${TOLERANCE * 100}%`,
    );
  // RSS is printed, not judged: it follows V8's sizing of its heap and the allocator's arenas, which
  // grow with the requests in flight and are not given back at once. On a busy CI machine the load
  // lags its rate and catches up in bursts, and RSS steps with them over a flat heap: 121 -> 153 MB
  // in 20 s over 23.5 MB of heap (f6e7cf5, which failed the check RSS had then). What a leak of ours
  // would hold is in the heap or external memory, judged above; the 10-minute soak shows RSS over a
  // run long enough to read (docs/performance/soak.md).
  // Descriptors and connections move with the load's bursts (the pool opens connections on demand
  // and closes them after 10 s idle): a leak shows as the end above everything the first half of the
  // run after warm-up saw, and connections never exceed the pool.
  const early = after.slice(0, Math.ceil(after.length / 2));
  const earlyFds = Math.max(...early.map((sample) => sample.fds));
  if (last.fds > earlyFds * (1 + TOLERANCE) + 2)
    problems.push(`open file descriptors went from at most ${earlyFds} to ${last.fds}`);
  const connections = after.map((sample) => sample.databaseConnections).filter((count) => count !== undefined);
  if (connections.length > 0 && Math.max(...connections) > POOL_MAX)
    problems.push(`${Math.max(...connections)} database connections, more than the pool's ${POOL_MAX}`);
  log(
    problems.length === 0
      ? 'check: no growth beyond what the stored pets explain'
      : `check FAILED: ${problems.join('; ')}`,
  );
  return problems.length === 0 ? 0 : 1;
}

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
