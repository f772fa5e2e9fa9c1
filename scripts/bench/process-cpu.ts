// CPU time of a process: from /proc/<pid>/stat for the PostgreSQL cluster's processes
// (scripts/bench/postgres-database.ts), to the nanosecond from each thread's schedstat for the
// benchmark's servers.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/* c8 ignore next -- getconf responds on Linux, the only system with /proc; 100 is its usual value */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * User plus system CPU seconds the process has used, and its parent; undefined once it has exited.
 * `reaped`: what its children that exited and that it waited for used (cutime plus cstime).
 */
export function processCpu(pid: number): { seconds: number; parent: number; reaped: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    parent: Number(fields[1]),
    seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    reaped: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

/**
 * User plus system CPU seconds of every live thread of process `pid`, to the nanosecond (the first
 * field of each thread's /proc/<pid>/task/<tid>/schedstat); undefined once the process has exited.
 * /proc/<pid>/stat counts in clock ticks (10 ms): a short window of a slow workload could use less
 * than one, and read as no CPU at all. A thread that ends takes its time with it here, which a
 * server does not do while it is measured (Node keeps its threads).
 */
export function threadsCpuSeconds(pid: number): number | undefined {
  let nanoseconds = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
        /* c8 ignore next 3 -- a thread that ends between the listing and the read: a race no test can time */
      } catch {
        // Its time went with it, as for a thread that ended before the listing.
      }
    }
  } catch {
    return undefined;
  }
  return nanoseconds / 1e9;
}
