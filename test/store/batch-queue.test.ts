// The batch queue on its own, with a send function that the test settles by hand: what goes into
// which batch, when a batch is sent, and what each item is served.
import { AsyncLocalStorage } from 'node:async_hooks';
import t, { type Test } from 'tap';
import { ServiceUnavailable } from '../../src/errors/api-errors.js';
import { createBatchQueue } from '../../src/store/postgres/batch-queue.js';

/** A send function whose batches wait until the test settles them, one at a time, in order. */
function manualSend<Item>() {
  const batches: { items: Item[]; settle(error?: Error): void }[] = [];
  const send = (items: Item[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({
        items,
        settle: (error) => (error === undefined ? resolve(items.map((item) => `done ${String(item)}`)) : reject(error)),
      });
    });
  return { batches, send };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The queue's timer does not keep a process alive (in the service, the request's socket does): this does, for the test.
 */
function keepAlive(t: Test) {
  const alive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(alive));
}

t.test('a lone item is sent at once; what arrives meanwhile goes together in the next batch', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 100, maxWaitMs: 10_000 });
  const first = submit(1);
  t.same(
    batches.map((batch) => batch.items),
    [[1]],
    'sent within the submit call: no timer, no wait',
  );
  const later = [submit(2), submit(3), submit(4)];
  await tick();
  t.equal(batches.length, 1, 'nothing else is sent while a batch is being written');
  batches[0]!.settle();
  t.equal(await first, 'done 1');
  await tick();
  t.same(
    batches.map((batch) => batch.items),
    [[1], [2, 3, 4]],
    'the three that waited, as one batch, in arrival order',
  );
  batches[1]!.settle();
  t.same(await Promise.all(later), ['done 2', 'done 3', 'done 4'], 'each item gets its own result');
  const alone = submit(5);
  t.same(batches[2]?.items, [5], 'idle again: the next item is sent at once');
  batches[2]!.settle();
  await alone;
});

t.test('no batch holds more than maxBatch items', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 3, maxWaitMs: 10_000 });
  const all = Array.from({ length: 11 }, (_, index) => submit(index));
  for (let settled = 0; settled < 5; settled++) {
    await tick();
    batches[settled]!.settle();
  }
  t.same(
    await Promise.all(all),
    Array.from({ length: 11 }, (_, index) => `done ${index}`),
  );
  t.same(
    batches.map((batch) => batch.items),
    [[0], [1, 2, 3], [4, 5, 6], [7, 8, 9], [10]],
  );
});

t.test('a failed batch fails each of its items with its error, and the next batch goes on', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 10, maxWaitMs: 10_000 });
  const first = submit(1);
  // Both fail at once: their outcomes are taken together, so that neither is left unhandled.
  const failing = Promise.allSettled([submit(2), submit(3)]);
  batches[0]!.settle();
  await first;
  await tick();
  const fault = new ServiceUnavailable();
  const after = submit(4);
  batches[1]!.settle(fault);
  t.same(await failing, [
    { status: 'rejected', reason: fault },
    { status: 'rejected', reason: fault },
  ]);
  await tick();
  t.same(batches[2]?.items, [4], 'the item that arrived during the failed batch is sent after it');
  batches[2]!.settle();
  t.equal(await after, 'done 4');
});

t.test('an item that has waited maxWaitMs for the batches ahead of it is answered 503, and never sent', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 10, maxWaitMs: 150 });
  keepAlive(t);
  const stuck = submit(1);
  const started = performance.now();
  const waiting = submit(2);
  await t.rejects(waiting, { code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
  const waited = performance.now() - started;
  t.ok(waited >= 140 && waited < 1000, `answered after ${Math.round(waited)} ms`);
  batches[0]!.settle();
  t.equal(await stuck, 'done 1', 'the batch being written is answered when it is done');
  await tick();
  t.equal(batches.length, 1, 'the expired item was not sent');
  const later = submit(3);
  t.same(batches[1]?.items, [3], 'and the queue serves on');
  batches[1]!.settle();
  await later;
});

t.test('only the items that have waited maxWaitMs expire: a later one stays queued and is sent', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 10, maxWaitMs: 200 });
  keepAlive(t);
  const stuck = submit(1);
  const early = submit(2);
  await new Promise((resolve) => setTimeout(resolve, 120));
  const late = submit(3);
  await t.rejects(early, { code: 'SERVICE_UNAVAILABLE' }, 'the item that waited 200 ms');
  batches[0]!.settle();
  t.equal(await stuck, 'done 1');
  await tick();
  t.same(batches[1]?.items, [3], 'the later item, not yet due when the earlier expired, goes next');
  batches[1]!.settle();
  t.equal(await late, 'done 3');
});

t.test('maxBatch 1: every item is sent at once, on its own, without waiting for others', async (t) => {
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(send, { maxBatch: 1, maxWaitMs: 10 });
  const all = [submit(1), submit(2), submit(3)];
  t.same(
    batches.map((batch) => batch.items),
    [[1], [2], [3]],
    'three sends under way at once',
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const batch of batches.reverse()) batch.settle();
  t.same(await Promise.all(all), ['done 1', 'done 2', 'done 3'], 'none expired: they wait for no other');
});

t.test('with keepContext, a batch is sent in the async context of its first item', async (t) => {
  const storage = new AsyncLocalStorage<string>();
  const contexts: (string | undefined)[] = [];
  const { batches, send } = manualSend<number>();
  const submit = createBatchQueue(
    (items: number[]) => {
      contexts.push(storage.getStore());
      return send(items);
    },
    { maxBatch: 10, maxWaitMs: 10_000, keepContext: true },
  );
  const first = storage.run('request 1', () => submit(1));
  const rest = [storage.run('request 2', () => submit(2)), storage.run('request 3', () => submit(3))];
  // The second batch is sent when the first settles: from the first request's continuation.
  storage.run('request 1', () => batches[0]!.settle());
  await first;
  await tick();
  batches[1]!.settle();
  await Promise.all(rest);
  t.same(
    contexts,
    ['request 1', 'request 2'],
    "each batch in its first item's context, not in the one that happened to send it",
  );
});
