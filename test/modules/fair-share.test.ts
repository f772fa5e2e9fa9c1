// Fair share on its own: busy or not (the loop's utilization, given here); the client holding more
// than twice what any other holds is refused, and stays refused for its Retry-After.
import t, { type Test } from 'tap';
import {
  BUSY_UTILIZATION,
  createFairShare,
  HELD_BURST,
  HELD_FOR_MS,
  REFUSED_FOR_MS,
} from '../../src/limits/fair-share.js';

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('while busy, the client holding more than twice the next one is refused; the others are not', async (t) => {
  let utilization = 0;
  let now = 0;
  const fair = createFairShare({ utilization: () => utilization, tickMs: 10, clock: () => now });
  t.teardown(() => fair.close());
  for (let index = 0; index < 100; index++) fair.admit('flood');
  for (let index = 0; index < 5; index++) fair.admit('calm');
  await tick();
  t.ok(fair.admit('flood'), 'not busy: everyone is admitted');
  utilization = BUSY_UTILIZATION;
  await tick();
  t.notOk(fair.admit('flood'), 'busy: the client over its share is refused');
  t.ok(fair.admit('calm'), 'the client under its share is admitted');
  t.ok(fair.share() >= 1, 'what the largest may hold, for RateLimit-Policy');
  utilization = 0;
  await tick();
  t.notOk(fair.admit('flood'), 'refused for its Retry-After, busy or not');
  now += REFUSED_FOR_MS;
  t.ok(fair.admit('flood'), 'then admitted again');
});

/**
 * A busy instance, on a clock the test moves, whose flood (100 requests beside a calm client's 20) has just been
 * refused.
 */
async function withRefusedFlood(t: Test) {
  const clock = { now: 0 };
  const fair = createFairShare({ utilization: () => 1, tickMs: 10, clock: () => clock.now });
  t.teardown(() => fair.close());
  for (let index = 0; index < 100; index++) fair.admit('flood');
  for (let index = 0; index < 20; index++) fair.admit('calm');
  await tick();
  t.notOk(fair.admit('flood'), 'busy: the flood is refused');
  return { fair, clock };
}

t.test(
  "a client refused is no one's competitor: while it waits, the calm client is not refused in its place",
  async (t) => {
    const { fair, clock } = await withRefusedFlood(t);
    // Its count decays while it waits (0.9 a tick: 100 becomes about 5 in 30 ticks); the calm client's
    // goes on, and is soon many times the flood's.
    let refused = 0;
    for (let round = 0; round < 30; round++) {
      for (let index = 0; index < 20; index++) if (!fair.admit('calm')) refused += 1;
      await tick(12);
    }
    t.equal(refused, 0, 'the calm client, 600 requests while the flood waits and the loop stays busy: none refused');
    t.notOk(fair.admit('flood'), 'the flood, still within its Retry-After, is still refused (not forgotten)');
    clock.now += REFUSED_FOR_MS;
    t.ok(fair.admit('flood'), 'then admitted again, below its share');
    // Just let in, its count is still low: for a while it is not what the calm client is measured
    // against either, and it is refused again as soon as it holds more than its share.
    let floodRefused = false;
    for (let round = 0; round < 10; round++) {
      for (let index = 0; index < 20; index++) if (!fair.admit('calm')) refused += 1;
      for (let index = 0; index < 100 && !floodRefused; index++) floodRefused = !fair.admit('flood');
      await tick(12);
    }
    t.equal(refused, 0, 'the calm client, 200 requests more while the flood comes back: none refused');
    t.ok(floodRefused, 'the flood, back over its share, refused again');
  },
);

t.test('a client alone is never refused, however busy; nor are clients that call alike', async (t) => {
  const fair = createFairShare({ utilization: () => 1, tickMs: 10 });
  t.teardown(() => fair.close());
  let refused = 0;
  for (let round = 0; round < 3; round++) {
    for (let index = 0; index < 1000; index++) if (!fair.admit('alone')) refused += 1;
    await tick();
  }
  t.equal(refused, 0, '3,000 requests alone, none refused');
  const alike = createFairShare({ utilization: () => 1, tickMs: 10 });
  t.teardown(() => alike.close());
  for (let round = 0; round < 3; round++) {
    for (let index = 0; index < 500; index++)
      for (const client of ['first', 'second', 'third']) if (!alike.admit(client)) refused += 1;
    await tick();
  }
  t.equal(refused, 0, 'three clients calling alike: none refused');
});

t.test('a client that went quiet is forgotten, and counts no more among the active', async (t) => {
  const fair = createFairShare({ utilization: () => 1, tickMs: 5 });
  t.teardown(() => fair.close());
  fair.admit('gone');
  for (let index = 0; index < 50; index++) fair.admit('stays');
  // 0.9 per tick: one request falls below half within seven ticks.
  await tick(200);
  let refused = 0;
  for (let index = 0; index < 50; index++) if (!fair.admit('stays')) refused += 1;
  t.equal(refused, 0, 'alone again: never refused');
});

t.test('the loop utilization and the clock by default: real measures', async (t) => {
  const fair = createFairShare({ tickMs: 5 });
  t.teardown(() => fair.close());
  await tick(20);
  t.ok(fair.admit('one'));
});

t.test('after its Retry-After a flood is held to its share, spread out, until it has room or calms down', async (t) => {
  let utilization = 1;
  let now = 0;
  const fair = createFairShare({ utilization: () => utilization, tickMs: 10, clock: () => now });
  t.teardown(() => fair.close());
  let calmRefused = 0;
  const calm = (requests: number) => {
    for (let index = 0; index < requests; index++) if (!fair.admit('calm')) calmRefused += 1;
  };
  const flood = (requests: number) => {
    let admitted = 0;
    for (let index = 0; index < requests; index++) if (fair.admit('flood')) admitted += 1;
    return admitted;
  };
  // The flood's admissions over a second of the clock, a hundred requests every 10 ms.
  const floodOverASecond = () => {
    let admitted = 0;
    for (let step = 0; step < 100; step++) {
      now += 10;
      admitted += flood(100);
    }
    return admitted;
  };
  flood(100);
  calm(20);
  await tick();
  t.notOk(fair.admit('flood'), 'busy: the flood is refused');
  now += REFUSED_FOR_MS;
  t.equal(flood(100), 1, 'after its Retry-After: one request, not a burst');
  now += 1000;
  t.equal(flood(100), HELD_BURST, 'a second later, a few at once at most, however long it waited');
  calm(20);
  await tick();
  const share = floodOverASecond();
  t.ok(share >= 5 && share <= 100, `busy: held to about 1.5 times the calm client's rate (${share} in a second)`);
  for (let round = 0; round < 10; round++) {
    calm(20);
    await tick(12);
  }
  t.equal(calmRefused, 0, 'the calm client, while the held flood counts less than it: never refused in its place');

  // The calm client's rate rose meanwhile (20 every 12 ms), and the flood's share with it.
  const held = floodOverASecond();
  t.ok(held > share, `busy: the share follows the calm client's rate (${share} -> ${held})`);
  utilization = BUSY_UTILIZATION * 0.6;
  await tick(60);
  const between = floodOverASecond();
  t.ok(Math.abs(between - held) <= 2, `neither busy nor roomy: the rate stays (${held} -> ${between})`);
  utilization = 0;
  await tick(300);
  const roomy = floodOverASecond();
  t.ok(roomy > between * 1.5, `room: the rate grows (${between} -> ${roomy})`);

  now += HELD_FOR_MS;
  t.equal(flood(100), 100, 'no longer over its rate on a busy instance for HELD_FOR_MS: let go');
});

t.test('a held client alone is not held', async (t) => {
  const { fair, clock } = await withRefusedFlood(t);
  clock.now += REFUSED_FOR_MS;
  // The calm client goes quiet and is forgotten (its count of 20 below a half within 36 ticks).
  await tick(600);
  let admitted = 0;
  for (let index = 0; index < 100; index++) if (fair.admit('flood')) admitted += 1;
  t.equal(admitted, 100, 'alone: every request admitted');
});
