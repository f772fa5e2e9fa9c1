// The soak's --check on rows of its own: it passes RSS stepping over a flat heap (as a busy CI
// machine shows it), and fails a leak in the heap or in Buffers, a failed request, descriptors that
// climb and connections beyond the pool (docs/performance/soak.md, "Soak").
import t from 'tap';
import { PET_BYTES_BOUND, POOL_MAX, summarize, type Sample } from '#tools/soak';

const MB = 1024 * 1024;
const WARM_UP_MS = 6_000;

/** Rows every 5 s from 5 s on, each from `base` with what `change(index)` alters. */
function rows(count: number, change: (index: number) => Partial<Sample> = () => ({})): Sample[] {
  return Array.from({ length: count }, (_, index) => ({
    seconds: (index + 1) * 5,
    requests: (index + 1) * 2_000,
    failed: 0,
    rss: 121 * MB,
    heapUsed: 24 * MB,
    external: 4 * MB,
    eventLoopDelayP99Ms: 2,
    fds: 60,
    databaseConnections: 10,
    pets: (index + 1) * 800,
    ...change(index),
  }));
}

function judge(samples: Sample[], { store = 'postgres', check = true } = {}) {
  const lines: string[] = [];
  const status = summarize(samples, { warmUpMs: WARM_UP_MS, store, check }, (line) => lines.push(line));
  return { status, lines, verdict: lines.at(-1)! };
}

t.test('RSS stepping with the load over a flat heap passes: it is printed, not judged', async (t) => {
  // As CI saw it (f6e7cf5): 121 -> 136 -> 153 MB in the last 10 s, the heap at 23.4-23.6 MB.
  const rss = [118, 120, 120.2, 121.5, 136, 153];
  const { status, lines, verdict } = judge(rows(6, (index) => ({ rss: rss[index]! * MB })));
  t.equal(status, 0, verdict);
  t.equal(verdict, 'check: no growth beyond what the stored pets explain');
  t.match(lines[1], /RSS 120\.0 → 153\.0 MB \(\+27\.5%\), max 153\.0 MB/);
  t.match(lines[0], /\(10 s to 30 s\): 8000 requests, 0 failed in all, 3200 pets stored/);
  t.match(lines.join('\n'), /database connections 10–10/);
});

t.test('RSS given back, and a run that stored no pet', async (t) => {
  const { status, lines } = judge(rows(6, (index) => ({ rss: (130 - index * 2) * MB, pets: 0 })));
  t.equal(status, 0);
  t.match(lines[1], /RSS 128\.0 → 120\.0 MB \(-6\.3%\)/);
  t.match(lines[2], /^ {2}heap after GC 24\.0 → 24\.0 MB \(\+0\.0%\)$/, 'no bytes per pet when none was stored');
});

t.test('a leak in Buffers fails, where RSS hardly moves', async (t) => {
  // 0.5 MB a second of Buffers kept (the leak loaded with the probe, docs/performance/soak.md).
  const { status, verdict } = judge(rows(6, (index) => ({ external: (4 + index * 2.5) * MB })));
  t.equal(status, 1);
  t.match(verdict, /^check FAILED: the heap and external memory grew by 10\.0 MB, more than 0\.0 MB for 3200 pets/);
});

t.test('in memory, each stored pet may hold PET_BYTES_BOUND; more is a leak', async (t) => {
  const growing = (bytesPerPet: number) =>
    rows(6, (index) => ({ heapUsed: 24 * MB + (index + 1) * 800 * bytesPerPet, databaseConnections: undefined }));
  const fine = judge(growing(PET_BYTES_BOUND), { store: 'memory' });
  t.equal(fine.status, 0, fine.verdict);
  t.notMatch(fine.lines.join('\n'), /database connections/, 'no database, no connections line');
  t.match(fine.lines[2], /bytes per stored pet/);
  const leaking = judge(growing(PET_BYTES_BOUND * 3), { store: 'memory' });
  t.equal(leaking.status, 1);
  t.match(leaking.verdict, /the heap and external memory grew by .* for 3200 pets plus 10%/);
  t.equal(judge(growing(PET_BYTES_BOUND)).status, 1, 'on PostgreSQL the pets explain nothing');
});

t.test('failed requests, climbing descriptors and connections beyond the pool fail, each named', async (t) => {
  const failed = judge(rows(6, (index) => ({ failed: index === 5 ? 3 : 0 })));
  t.equal(failed.status, 1);
  t.match(failed.verdict, /3 requests failed/);
  // Descriptors that move with bursts and come back pass; a climb past the first half's most fails.
  const bursts = judge(rows(6, (index) => ({ fds: [60, 66, 70, 64, 61, 68][index]! })));
  t.equal(bursts.status, 0, bursts.verdict);
  const climbing = judge(rows(6, (index) => ({ fds: 60 + index * 5 })));
  t.equal(climbing.status, 1);
  t.match(climbing.verdict, /open file descriptors went from at most 75 to 85/);
  const beyond = judge(rows(6, (index) => ({ databaseConnections: index === 3 ? POOL_MAX + 1 : POOL_MAX })));
  t.equal(beyond.status, 1);
  t.match(beyond.verdict, /11 database connections, more than the pool's 10/);
  const all = judge(rows(6, (index) => ({ failed: 1, fds: 60 + index * 5, external: (4 + index * 2.5) * MB })));
  t.match(all.verdict, /requests failed; the heap .*; open file descriptors/, 'every problem, in one line');
});

t.test('without --check it only prints; a run too short to compare fails the check', async (t) => {
  const leaking = judge(
    rows(6, (index) => ({ external: (4 + index * 2.5) * MB })),
    { check: false },
  );
  t.equal(leaking.status, 0);
  t.match(leaking.verdict, /database connections/, 'the summary, and no verdict');
  const short = rows(2);
  t.equal(judge(short).status, 1, 'one row after warm-up: nothing to compare');
  t.equal(judge(short).verdict, 'summary: too short for a summary after warm-up');
  t.equal(judge(short, { check: false }).status, 0);
  t.equal(judge([]).status, 1, 'no row at all');
});
