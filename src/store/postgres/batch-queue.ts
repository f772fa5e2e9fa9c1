// Smart batching, with no timer: while one batch is being written, the items that arrive wait and
// then go together as the next batch. An idle queue sends an item at once, so a lone item is no
// slower than without batching; under load, a batch holds what arrived during one round trip and
// commit. The PostgreSQL store sends its creates through one, and its changes without a key through
// another (one statement, one commit per batch).
import { AsyncResource } from 'node:async_hooks';
import { ServiceUnavailable } from '../../errors/api-errors.js';

/**
 * The most creates, or changes without a key, in one batch unless configured
 * (DATABASE_WRITE_BATCH_MAX): see docs/performance.md.
 */
export const DEFAULT_WRITE_BATCH_MAX = 100;

export interface BatchQueueOptions {
  /** The most items one batch holds; 1 sends every item at once on its own, with no queue. */
  maxBatch: number;
  /**
   * How long an item may wait for the batches ahead of it before it is given 503 without being
   * sent: what a request alone would wait for the database at most.
   */
  maxWaitMs: number;
  /**
   * Sends each batch in the async context of its first item (as if that item's request sent it),
   * so that a span of the statement is a child of that request's span.
   */
  keepContext?: boolean;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
  arrived: number;
  inContext: ((run: () => void) => void) | undefined;
}

/**
 * `send` writes one batch and returns one result per item, in order; if it fails, every item of the
 * batch fails with its error. Returns the function that submits one item.
 */
export function createBatchQueue<Item, Result>(
  send: (items: Item[]) => Promise<Result[]>,
  { maxBatch, maxWaitMs, keepContext = false }: BatchQueueOptions,
): (item: Item) => Promise<Result> {
  if (maxBatch === 1) return async (item) => (await send([item]))[0]!;

  let queue: Waiting<Item, Result>[] = [];
  let sending = false;
  let expiry: NodeJS.Timeout | undefined;

  // Items still queued when they have waited maxWaitMs are given 503: only the oldest can be
  // due, so one timer, set for it, serves the whole queue.
  const expire = () => {
    expiry = undefined;
    const now = performance.now();
    const due = queue.findIndex((waiting) => now - waiting.arrived < maxWaitMs);
    const expired = due === -1 ? queue : queue.slice(0, due);
    queue = due === -1 ? [] : queue.slice(due);
    for (const waiting of expired) waiting.reject(new ServiceUnavailable());
    watch();
  };
  const watch = () => {
    if (expiry !== undefined || queue.length === 0) return;
    expiry = setTimeout(expire, Math.max(0, queue[0]!.arrived + maxWaitMs - performance.now()));
    expiry.unref();
  };

  const flush = () => {
    const batch = queue.splice(0, maxBatch);
    if (queue.length === 0 && expiry !== undefined) {
      clearTimeout(expiry);
      expiry = undefined;
    }
    sending = true;
    const run = () => {
      send(batch.map((waiting) => waiting.item))
        .then(
          (results) => batch.forEach((waiting, index) => waiting.resolve(results[index]!)),
          (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
        )
        .finally(() => {
          sending = false;
          if (queue.length > 0) flush();
        });
    };
    const first = batch[0]!;
    if (first.inContext === undefined) run();
    else first.inContext(run);
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({
        item,
        resolve,
        reject,
        arrived: performance.now(),
        inContext: keepContext ? AsyncResource.bind((run: () => void) => run()) : undefined,
      });
      if (sending) watch();
      else flush();
    });
}

/**
 * Writes `items` in rounds in which no name appears twice (an item names its pet, its
 * Idempotency-Key, or nothing), each round by one call of `write`, after the round before it: two
 * changes of one pet, or two requests with one key, are never in one statement, and the later sees
 * what the earlier did. The results come in the items' order.
 */
export async function inRounds<Item, Result>(
  items: readonly Item[],
  namesOf: (item: Item) => readonly string[],
  write: (round: Item[]) => Promise<Result[]>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  for (let pending = items.map((_, index) => index); pending.length > 0;) {
    const named = new Set<string>();
    const round: number[] = [];
    const later: number[] = [];
    for (const index of pending) {
      const names = namesOf(items[index]!);
      (names.some((name) => named.has(name)) ? later : round).push(index);
      // A later item meets what a deferred one names too: one pet's changes keep their order.
      for (const name of names) named.add(name);
    }
    const written = await write(round.map((index) => items[index]!));
    round.forEach((index, position) => (results[index] = written[position]!));
    pending = later;
  }
  return results;
}
