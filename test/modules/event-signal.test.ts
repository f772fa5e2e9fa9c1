import t from 'tap';
import { createEventSignal, firstEventAfter, signalling } from '../../src/events/event-signal.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { startEventRetention } from '../../src/events/retention.js';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { standInStore } from '../helpers/stand-in-store.js';

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('notify wakes every waiter at once; a wait otherwise ends after its time', async (t) => {
  const signal = createEventSignal();
  const began = performance.now();
  const woken = Promise.all([signal.wait(0, 5000), signal.wait(7, 5000)]);
  await after(20);
  signal.notify();
  t.same(await woken, [true, true]);
  t.ok(performance.now() - began < 1000);
  const quiet = performance.now();
  t.equal(await signal.wait(0, 50), true, 'its time passed');
  t.ok(performance.now() - quiet >= 45);
});

t.test('the poll wakes only those waiting before the event it found; a failed look is no event', async (t) => {
  let newest: number | undefined;
  let failing = true;
  const looks: number[] = [];
  const signal = createEventSignal(async (from) => {
    looks.push(from);
    if (failing) {
      failing = false;
      throw new Error('database away');
    }
    return newest !== undefined && newest > from ? newest : undefined;
  }, 10);
  let early = false;
  let late = false;
  void signal.wait(3, 5000).then(() => (early = true));
  void signal.wait(9, 400).then(() => (late = true));
  await after(60);
  t.notOk(early || late, 'nothing yet, the failed look included');
  newest = 5;
  await after(60);
  t.ok(early, 'the waiter after seq 3 is woken by seq 5');
  t.notOk(late, 'the one after seq 9 waits on');
  t.ok(looks.includes(3), 'the poll looks after the lowest seq waited on');
  await after(400);
  t.ok(late, 'until its time is up');
  const count = looks.length;
  await after(50);
  t.equal(looks.length, count, 'no waiter, no poll');
});

t.test('an abort ends a wait; close ends every wait, and every later one, with false', async (t) => {
  const signal = createEventSignal(async () => undefined, 10);
  const abort = new AbortController();
  const aborted = signal.wait(0, 5000, abort.signal);
  abort.abort();
  t.equal(await aborted, true, 'aborted: read again (and find the client gone)');
  t.equal(await signal.wait(0, 5000, abort.signal), true, 'already aborted');
  const pending = signal.wait(0, 5000);
  signal.close();
  t.equal(await pending, false);
  t.equal(await signal.wait(0, 5000), false, 'closed');
});

t.test('retention purges now and on its timer; a failure is logged, not thrown', async (t) => {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(line) },
  ) as unknown as FastifyBaseLogger;
  // Made when asked: a rejected promise made ahead would be unhandled until then.
  const responses = [() => Promise.resolve(3), () => Promise.reject(new Error('database away'))];
  const asked: number[] = [];
  const store = standInStore({
    purgeEvents: (olderThanMs) => (asked.push(olderThanMs), (responses.shift() ?? (() => Promise.resolve(0)))()),
  });
  const retention = startEventRetention(store, 7_000, log, 20);
  await after(100);
  await retention.close();
  t.ok(asked.length >= 3 && asked.every((ms) => ms === 7_000), 'with the retention');
  t.match(lines.join(''), /"purged":3.*purged events past their retention/);
  t.match(lines.join(''), /"reason":"database away".*cannot purge old events now/);
});

t.test(
  'the poll reads the first event after a seq from the store; a signalled store tells of every write',
  async (t) => {
    const store = createMemoryPetStore();
    const first = firstEventAfter(store);
    t.equal(await first(0), undefined, 'none yet');
    let told = 0;
    const signalled = signalling(
      { ...store, ready: async () => true },
      { notify: () => void told++, wait: async () => true, close: () => undefined },
    );
    const pet = await signalled.create({ name: 'Rex', categoryId: 1 });
    await signalled.createOnce({ name: 'Tom', categoryId: 2 }, { scope: 'a'.repeat(64), key: 'k' });
    await signalled.update(pet.id, { status: 'sold' }, '*');
    await signalled.remove(pet.id, '*');
    t.equal(told, 4, 'each write');
    t.equal(await first(0), 1, 'the first event');
    t.equal(await first(3), 4, 'the one after seq 3');
    t.equal(await signalled.ready!(), true, "the store's readiness, passed on");
    t.ok(await signalled.deliveries.claim('http://hook', 'this', 60_000), "the store's ledger, passed on");
    t.equal(await store.deliveries.claim('http://hook', 'other', 60_000), null, 'leased through it');
    t.equal((await signalled.listEvents(undefined, 10)).events.length, 4);
    t.equal(await signalled.purgeEvents(3_600_000), 0);
    t.same(await signalled.get(pet.id), null);
    t.equal((await signalled.list({ limit: 10 })).pets.length, 1);
  },
);
