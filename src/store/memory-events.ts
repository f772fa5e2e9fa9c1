// The in-memory store's change feed and webhook ledger. Events are appended by the store's own
// methods, which never await, so an event is recorded in the same step as its change and the
// feed's order is the order of the changes.
import { randomBytes } from 'node:crypto';
import type { Pet, PetId } from '../types/api.js';
import type { DeliveryLedger, DeliveryState, EventPage, PetEventType, StoredEvent } from './pet-store.js';

/** The most events the in-memory feed keeps: the oldest go first beyond it (docs/events.md). */
export const DEFAULT_MAX_EVENTS = 1_000_000;

export class MemoryEventLog {
  /** A new name per store: a cursor of an earlier process is expired, never misread. */
  readonly epoch = randomBytes(4).toString('hex');
  private events: StoredEvent[] = [];
  /** Where the kept events start in `events` (dropped ones are cut off in bulk). */
  private first = 0;
  private horizon = 0;
  private nextSeq = 1;

  constructor(
    private readonly maxEvents = DEFAULT_MAX_EVENTS,
    private readonly now: () => number = Date.now,
  ) {}

  append(type: PetEventType, petId: PetId, version: number, pet?: Pet): void {
    const event: StoredEvent = { seq: this.nextSeq++, type, petId, version, occurredAt: this.now() };
    if (pet !== undefined) event.pet = pet;
    this.events.push(event);
    if (this.events.length - this.first > this.maxEvents) this.drop(this.first + 1);
  }

  get latest(): number {
    return this.nextSeq - 1;
  }

  page(after: number | undefined, limit: number): EventPage {
    // Seqs are dense here, so the event after seq n sits n - horizon places into what is kept.
    const from = this.first + Math.max(0, (after ?? 0) - this.horizon);
    const events = this.events.slice(from, from + limit).map((event) => (event.pet === undefined ? { ...event } : { ...event, pet: { ...event.pet } }));
    return { events, epoch: this.epoch, horizon: this.horizon };
  }

  purge(olderThanMs: number): number {
    const cutoff = this.now() - olderThanMs;
    let end = this.first;
    while (end < this.events.length && this.events[end]!.occurredAt < cutoff) end++;
    const purged = end - this.first;
    this.drop(end);
    return purged;
  }

  /** Drops the events before index `end`. */
  private drop(end: number) {
    if (end <= this.first) return;
    this.horizon = this.events[end - 1]!.seq;
    this.first = end;
    // The array is cut once half of it is dropped: a copy of what is kept, now and then, not per event.
    if (this.first > 1024 && this.first * 2 > this.events.length) {
      this.events = this.events.slice(this.first);
      this.first = 0;
    }
  }
}

/** The ledger of one process: leases still apply, so that it behaves as the shared one does. */
export function memoryDeliveryLedger(latest: () => number, now: () => number = Date.now): DeliveryLedger {
  const states = new Map<string, DeliveryState & { owner: string; leasedUntil: number }>();
  return {
    async claim(endpoint, owner, leaseMs) {
      let state = states.get(endpoint);
      if (state === undefined) {
        state = { position: latest(), attempt: 0, dueAt: 0, stoppedEntry: '', owner, leasedUntil: 0 };
        states.set(endpoint, state);
      }
      if (state.owner !== owner && state.leasedUntil > now()) return null;
      state.owner = owner;
      state.leasedUntil = now() + leaseMs;
      const { position, attempt, dueAt, stoppedEntry } = state;
      return { position, attempt, dueAt, stoppedEntry };
    },
    async record(endpoint, owner, { position, attempt, dueAt, stoppedEntry }, leaseMs) {
      const state = states.get(endpoint);
      if (state === undefined || state.owner !== owner) return false;
      Object.assign(state, { position, attempt, dueAt, stoppedEntry, leasedUntil: now() + leaseMs });
      return true;
    },
    async release(endpoint, owner) {
      const state = states.get(endpoint);
      if (state?.owner === owner) state.leasedUntil = 0;
    },
  };
}
