// The in-memory store's change feed and webhook ledger. Events are appended by the store's own
// methods, which never await, so an event is recorded in the same step as its change and the
// feed's order is the order of the changes.
import { randomBytes } from 'node:crypto';
import type { PetStatus } from '../types/api.js';
import type { EventPage, PetEventType, StoredEvent } from './pet-store.js';

/** The most events the in-memory feed keeps: the oldest go first beyond it (docs/events.md). */
export const DEFAULT_MAX_EVENTS = 1_000_000;

const TYPES: readonly PetEventType[] = ['pet.created', 'pet.updated', 'pet.deleted'];

/**
 * The events in columns, as the store keeps its pets (docs/performance.md): a pet's name, category
 * and status are the very values the store holds (strings and small integers, shared, not copied),
 * so an event costs about 45 bytes, where an object per event with a copy of its pet cost 134.
 * Seqs are dense (1, 2, 3…): the event after seq n sits n - horizon places into what is kept.
 */
export class MemoryEventLog {
  /** A new name per store: a cursor of an earlier process is expired, never misread. */
  readonly epoch = randomBytes(4).toString('hex');
  private types = new Uint8Array(1024);
  private versions = new Uint32Array(1024);
  private petIds = new Float64Array(1024);
  private times = new Float64Array(1024);
  private names: (string | undefined)[] = [];
  private categoryIds: (number | bigint | undefined)[] = [];
  private statuses: (PetStatus | undefined)[] = [];
  /** Where the kept events start in the columns, and where they end. */
  private first = 0;
  private end = 0;
  private horizon = 0;
  private dropping: ((through: number) => void) | undefined;

  constructor(
    private readonly maxEvents = DEFAULT_MAX_EVENTS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records a change; `name` and `categoryId` (and `status`, when it has one) are the pet's after it, none for a
   * removal.
   */
  append(
    type: PetEventType,
    petId: number,
    version: number,
    {
      name,
      categoryId,
      status,
    }: { name?: string | undefined; categoryId?: number | bigint | undefined; status?: PetStatus | undefined } = {},
  ): void {
    if (this.end === this.types.length) this.makeRoom();
    const at = this.end++;
    this.types[at] = TYPES.indexOf(type);
    this.petIds[at] = petId;
    this.versions[at] = version;
    this.times[at] = this.now();
    this.names[at] = name;
    this.categoryIds[at] = categoryId;
    this.statuses[at] = status;
    if (this.end - this.first > this.maxEvents) this.drop(this.first + 1);
  }

  /** Told, before events are dropped (purged, or beyond the most kept), of the seq they are dropped through. */
  onDrop(listener: (through: number) => void): void {
    this.dropping = listener;
  }

  /** How many kept events after seq `after`, up to seq `through`, are of `types` (null: any). */
  count(after: number, through: number, types: readonly PetEventType[] | null): number {
    const wanted = types === null ? undefined : new Set(types.map((type) => TYPES.indexOf(type)));
    let count = 0;
    const from = this.first + Math.max(0, after - this.horizon);
    const to = Math.min(this.end, this.first + through - this.horizon);
    for (let at = from; at < to; at++) if (wanted === undefined || wanted.has(this.types[at]!)) count++;
    return count;
  }

  get latest(): number {
    return this.horizon + this.end - this.first;
  }

  page(after: number | undefined, limit: number): EventPage {
    const from = this.first + Math.max(0, (after ?? 0) - this.horizon);
    const events: StoredEvent[] = [];
    for (let at = from; at < this.end && events.length < limit; at++) events.push(this.event(at));
    return { events, epoch: this.epoch, horizon: this.horizon };
  }

  purge(olderThanMs: number): number {
    const cutoff = this.now() - olderThanMs;
    let end = this.first;
    while (end < this.end && this.times[end]! < cutoff) end++;
    const purged = end - this.first;
    this.drop(end);
    return purged;
  }

  /** A fresh object each time: no caller can change what is kept. */
  private event(at: number): StoredEvent {
    const event: StoredEvent = {
      seq: this.horizon + at - this.first + 1,
      type: TYPES[this.types[at]!]!,
      petId: this.petIds[at]!,
      version: this.versions[at]!,
      occurredAt: this.times[at]!,
    };
    const name = this.names[at];
    if (name !== undefined) {
      const status = this.statuses[at];
      event.pet =
        status === undefined
          ? { id: event.petId, name, categoryId: this.categoryIds[at]! }
          : { id: event.petId, name, categoryId: this.categoryIds[at]!, status };
    }
    return event;
  }

  /** Drops the events before index `end`. */
  private drop(end: number) {
    if (end <= this.first) return;
    this.dropping?.(this.horizon + end - this.first);
    this.horizon += end - this.first;
    for (let at = this.first; at < end; at++) this.names[at] = this.categoryIds[at] = this.statuses[at] = undefined;
    this.first = end;
  }

  /** Full: the kept events move to the front when half the columns are dropped ones, else the columns double. */
  private makeRoom() {
    const kept = this.end - this.first;
    const size = this.first * 2 >= this.types.length ? this.types.length : this.types.length * 2;
    const moved = <T extends Uint8Array | Uint32Array | Float64Array>(
      column: T,
      Type: new (length: number) => T,
    ): T => {
      const next = new Type(size);
      next.set(column.subarray(this.first, this.end));
      return next;
    };
    this.types = moved(this.types, Uint8Array);
    this.versions = moved(this.versions, Uint32Array);
    this.petIds = moved(this.petIds, Float64Array);
    this.times = moved(this.times, Float64Array);
    this.names = this.names.slice(this.first, this.end);
    this.categoryIds = this.categoryIds.slice(this.first, this.end);
    this.statuses = this.statuses.slice(this.first, this.end);
    this.first = 0;
    this.end = kept;
  }
}
