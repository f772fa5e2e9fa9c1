// Fair share, with no configuration: while the instance is busy, a client that holds more than its
// share of the recent work is refused, so that the others keep their latency. A client alone is
// never refused, however fast it calls.
//
// Busy: the event loop's utilization over the last tick (the share of the time it spent running
// code rather than waiting for I/O) is at least BUSY_UTILIZATION. Node serves every request on this
// one loop, so a full loop is what makes a calm client's request wait behind a flood's.
// Share: the requests admitted per client, decayed by DECAY every tick, so that a count is about the
// requests of the last second. While busy, a client whose count is more than OVER_SHARE times that
// of every other active client is refused: a flood is held to 1.5 times the next client's rate,
// and whoever calls less than that is never refused (a calm client, or clients calling alike, which
// share the service already). Refused requests are not counted, so a flood is admitted again as
// soon as it falls back within its share. A client refused is told to come back in a second
// (Retry-After: 1), and is refused until then: a flood that does not wait stays refused, rather than
// being admitted again as soon as its rejections have left the loop less busy. Meanwhile it is no one's
// competitor: its count, falling while it is refused, would otherwise soon make the calm client's
// the larger, and its rejections keep the loop busy, so the calm client was refused in its place (10
// of 6,600 calm requests in one benchmark round).
//
// After its Retry-After a refused client is held, not let go: it is admitted at its share's rate,
// spread evenly (a token bucket), for HELD_FOR_MS after it was last over that rate on a busy
// instance. While the loop is less than half as busy as that, the rate grows by a tenth a tick, so
// that a client that is no longer a flood (or an instance that has the room) is soon held to
// nothing; between the two it stays, so that the loop settles below busy instead of swinging
// through it. Let go at once instead, a flood ran at full speed until the next tick saw the loop
// busy, up to 100 ms each second, and a calm client's request met it one time in ten: its p99 was
// 6.7 times its p99 alone, against at most 3 (docs/performance/fair-share.md, "Fair share").
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export const BUSY_UTILIZATION = 0.75;
/** How long a client refused for its share stays refused (its Retry-After). */
export const REFUSED_FOR_MS = 1_000;
export const TICK_MS = 100;
/** Per tick: a count then stands for about TICK_MS / (1 - DECAY) = 1 s of requests. */
const DECAY = 0.9;
/** Below this a client's count is forgotten (it has gone quiet). */
const FORGOTTEN = 0.5;
/** How many times the next client's count a client may hold while the instance is busy. */
const OVER_SHARE = 1.5;
/** How long a client stays held after it was last over its rate on a busy instance. */
export const HELD_FOR_MS = 10_000;
/** Below this utilization the instance has room: a held client's rate grows (between it and busy, it stays). */
const ROOMY_UTILIZATION = BUSY_UTILIZATION / 2;
/** Per tick that the instance has room, a held client's rate grows by this factor. */
const HELD_GROWTH = 1.1;
/** A held client may be admitted this many requests at once, at most: no burst for a calm request to wait behind. */
export const HELD_BURST = 4;

export interface FairShare {
  /** Counts the request and returns true, or false when it is refused (busy, and over its share). */
  admit(client: string): boolean;
  /** What the largest client may hold while busy, in requests per second (for RateLimit-Policy). */
  share(): number;
  close(): void;
}

interface Options {
  /** The loop's utilization since the last call (tests replace it). */
  utilization?: () => number;
  tickMs?: number;
  /** Milliseconds, for how long a refused client stays refused. */
  clock?: () => number;
}

interface ClientState {
  count: number;
  /** Until when the client is refused; a past time once it was, -Infinity if it never was. */
  refusedUntil: number;
  /** Until when the client is held to `rate` (requests a second), once refused. */
  heldUntil: number;
  rate: number;
  /** Requests the held client may still be admitted now, and when that was worked out. */
  allowance: number;
  allowedAt: number;
}

export function createFairShare({
  utilization = loopUtilization(),
  tickMs = TICK_MS,
  clock = performance.now.bind(performance),
}: Options = {}): FairShare {
  const counts = new Map<string, ClientState>();
  let busy = false;
  // The two largest counts at the last tick among the clients a count can be compared with: none
  // held, or refused within the last REFUSED_FOR_MS, whose count is low because it was refused. A
  // client is compared with the largest of these others, as its count is now.
  let first: ClientState | undefined;
  let second: ClientState | undefined;
  let share = 1;
  const tick = () => {
    const used = utilization();
    busy = used >= BUSY_UTILIZATION;
    first = undefined;
    second = undefined;
    const now = clock();
    for (const [client, state] of counts) {
      state.count *= DECAY;
      const refusedLately = state.refusedUntil + REFUSED_FOR_MS > now;
      if (state.count < FORGOTTEN && !refusedLately && state.heldUntil <= now) {
        counts.delete(client);
        continue;
      }
      // A client refused lately, or held, is no one's competitor: its count is low because it was refused.
      if (refusedLately || state.heldUntil > now) continue;
      if (first === undefined || state.count > first.count) {
        second = first;
        first = state;
      } else if (second === undefined || state.count > second.count) {
        second = state;
      }
    }
    for (const state of counts.values()) {
      if (state.heldUntil <= now) continue;
      // A held client is never first or second: its share is measured against the largest other.
      if (busy && first !== undefined) state.rate = Math.max(1, OVER_SHARE * first.count);
      else if (used < ROOMY_UTILIZATION) state.rate *= HELD_GROWTH;
    }
  };
  const timer = setInterval(tick, tickMs);
  timer.unref();
  return {
    admit(client) {
      let state = counts.get(client);
      if (state === undefined) {
        state = { count: 0, refusedUntil: -Infinity, heldUntil: -Infinity, rate: 0, allowance: 0, allowedAt: 0 };
        counts.set(client, state);
      }
      const other = state === first ? second : first;
      // The clock is read only for a client refused before: an admitted request costs no more than a count.
      if (state.refusedUntil !== -Infinity) {
        const now = clock();
        if (now < state.refusedUntil) return false;
        // Held, and not alone: admitted as its rate allows.
        if (now < state.heldUntil && other !== undefined) {
          state.allowance = Math.min(HELD_BURST, state.allowance + ((now - state.allowedAt) * state.rate) / 1000);
          state.allowedAt = now;
          if (state.allowance < 1) {
            if (busy) state.heldUntil = now + HELD_FOR_MS;
            return false;
          }
          state.allowance -= 1;
          state.count += 1;
          return true;
        }
      }
      if (busy && other !== undefined && state.count > OVER_SHARE * other.count) {
        const now = clock();
        state.refusedUntil = now + REFUSED_FOR_MS;
        share = Math.max(1, Math.floor(OVER_SHARE * other.count));
        state.heldUntil = state.refusedUntil + HELD_FOR_MS;
        state.rate = share;
        // Its first request after the Retry-After is admitted; the rest as the rate allows.
        state.allowance = 1;
        state.allowedAt = state.refusedUntil;
        return false;
      }
      state.count += 1;
      return true;
    },
    // In requests a second (a count stands for about a second of requests): as of the last rejection.
    share: () => share,
    close: () => clearInterval(timer),
  };
}

/** The event loop's utilization since the previous call (0 to 1). */
function loopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}
