// The benchmark's CPU readings (scripts/bench/process-cpu.ts): a thread's time to the nanosecond,
// where /proc/<pid>/stat counts 10 ms ticks.
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { processCpu, threadsCpuSeconds } from '#tools/bench';

t.test('every thread of a process, to less than a tick, and the same as the ticks over a longer time', async (t) => {
  const before = threadsCpuSeconds(process.pid)!;
  const ticksBefore = processCpu(process.pid)!.seconds;
  // Half a millisecond of work: less than one tick of /proc/<pid>/stat.
  const end = process.hrtime.bigint() + 500_000n;
  while (process.hrtime.bigint() < end);
  const spent = threadsCpuSeconds(process.pid)! - before;
  t.ok(spent > 0.0004 && spent < 0.05, `half a millisecond of work read as ${(spent * 1000).toFixed(3)} ms`);
  t.not(Math.round(spent * 1e6) % 10_000, 0, 'not a whole number of ticks');
  const longer = process.hrtime.bigint() + 300_000_000n;
  while (process.hrtime.bigint() < longer);
  const threads = threadsCpuSeconds(process.pid)! - before;
  const ticks = processCpu(process.pid)!.seconds - ticksBefore;
  t.ok(
    Math.abs(threads - ticks) < 0.05,
    `0.3 s of work: ${threads.toFixed(3)} s by thread, ${ticks.toFixed(2)} s in ticks`,
  );
});

t.test('a process that has exited: no reading', async (t) => {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  t.equal(threadsCpuSeconds(pid!), undefined);
  t.equal(processCpu(pid!), undefined);
});
