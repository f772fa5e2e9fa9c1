// The in-memory store's record of idempotency keys: key → what the first request with it did (the
// index of the pet a create made, or a change's response), kept for the retention period and bounded
// in number. Keys are recorded in time order, so the expired and the oldest are always at the front
// of a queue; dropping them costs O(1) per key.
export interface MemoryKeyOptions<Recorded = number> {
  retentionMs: number;
  /** The most keys held; beyond it the oldest are forgotten, even within the retention period. */
  maxKeys: number;
  now: () => number;
  /** Told of each record as its key is forgotten (expired, or the oldest beyond maxKeys). */
  onForget?: (value: Recorded) => void;
}

export const DEFAULT_MAX_KEYS = 100_000;

export class MemoryIdempotencyKeys<Recorded = number> {
  private readonly recorded = new Map<string, Recorded>();
  private readonly queue: string[] = [];
  private readonly times: number[] = [];
  private head = 0;

  constructor(private readonly options: MemoryKeyOptions<Recorded>) {}

  /** What was recorded with this key, or undefined (expired keys are forgotten first). */
  find(key: string): Recorded | undefined {
    this.forgetExpired();
    return this.recorded.get(key);
  }

  record(key: string, value: Recorded) {
    this.recorded.set(key, value);
    this.queue.push(key);
    this.times.push(this.options.now());
    while (this.recorded.size > this.options.maxKeys) this.forgetOldest();
  }

  private forgetExpired() {
    const cutoff = this.options.now() - this.options.retentionMs;
    while (this.head < this.queue.length && this.times[this.head]! <= cutoff) this.forgetOldest();
  }

  private forgetOldest() {
    const key = this.queue[this.head]!;
    this.options.onForget?.(this.recorded.get(key)!);
    this.recorded.delete(key);
    this.head += 1;
    // The forgotten front is cut off once it is half the queue: amortised O(1) per key.
    if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.times.splice(0, this.head);
      this.head = 0;
    }
  }
}
