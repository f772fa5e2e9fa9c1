// The request line's time field is pino's (`,"time":` and Date.now()), whatever the clock does.
import t from 'tap';
import { unixTimeField } from '../../src/logging/unix-time.js';

t.test('the field is Unix time in ms as text, across milliseconds, seconds and clock steps', async (t) => {
  let now = 1_795_305_599_990;
  const field = unixTimeField(() => now);
  const seen: number[] = [];
  // Every millisecond across a second's end, then the clock stepping back, far forward and back again.
  const steps = [...Array.from({ length: 30 }, () => 1), -5_000, 1, 86_400_000 + 7, 0, -1, -999, 1_000, 3];
  for (const step of steps) {
    now += step;
    seen.push(now);
    t.equal(field(), `,"time":${now}`, String(now));
  }
  t.ok(seen.some((ms) => ms % 1000 === 0) && seen.some((ms) => ms % 1000 === 999), 'both ends of a second');
});

t.test('Date.now unless told', async (t) => {
  const before = Date.now();
  const time = Number(unixTimeField()().slice(',"time":'.length));
  t.ok(time >= before && time <= Date.now());
});
