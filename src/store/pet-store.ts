import type { ChangeKey, IdempotencyKey } from '../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetPatch, PetStatus } from '../types/api.js';
import type { OrderStore } from './order-store.js';
import type { PetEventType } from './event-type.js';
import type { ReadAt } from './read-at.js';
import type { WebhookEndpointStore } from './webhook-endpoint-store.js';

export interface ListOptions {
  limit: number;
  /** Where it may be read (ReadAt); the page's own position is `position`. */
  at?: ReadAt | undefined;
  status?: PetStatus | undefined;
  /** Only pets whose id is greater than this one: where the previous page ended (keyset pagination). */
  after?: PetId | undefined;
}

export interface PetPage {
  /** At most `limit` pets in ascending id order. */
  pets: Pet[];
  /** The version of each pet of `pets`, in the same order. */
  versions: number[];
  /** Whether pets of the same filter follow the last one in `pets`, at the time of reading. */
  more: boolean;
  /**
   * The seq of the newest event of the feed this page reflects (0: none yet), read at the same
   * moment as the page: the page holds every change up to it and none after.
   */
  position: number;
}

/** A pet and its version: 1 when it was added, one more after each change. */
export interface VersionedPet {
  pet: Pet;
  version: number;
}

export interface CreatedOnce {
  /** The pet created by this call, or the one created by the first call with the same key. */
  pet: Pet;
  /** True when the key was already recorded: nothing was created, `pet` is the earlier one. */
  replayed: boolean;
}

/** The versions a change may apply to (If-Match's tags), or any version the pet has ('*'). */
export type Precondition = readonly number[] | '*';

export type { ChangeKey } from '../idempotency/idempotency-key.js';

/**
 * What a conditional change did: `changed` (the pet afterwards; null when it was removed), `missing`
 * (no such pet), `failed` (the pet exists at another version), or `replayed` (a recorded key with
 * the same request: its first response, changing nothing), or `reused` (a recorded key, another request).
 */
export type ChangeOutcome =
  | { kind: 'changed'; pet: VersionedPet | null }
  | { kind: 'replayed'; pet: VersionedPet | null }
  | { kind: 'missing' }
  | { kind: 'failed'; version: number }
  | { kind: 'reused'; petId: PetId };

/** What happened to a pet, in the words of the feed. */
export type { PetEventType } from './event-type.js';

/** One change to one pet, as the store recorded it with the change. */
export interface StoredEvent {
  /** Its place in the feed: greater than every event committed before it. Not dense. */
  seq: number;
  type: PetEventType;
  petId: PetId;
  /** The pet's version after the change (a removal counts one more). */
  version: number;
  /** When it was recorded, as Unix time in ms. */
  occurredAt: number;
  /** The pet after the change; absent for a removal. */
  pet?: Pet;
}

export interface EventPage {
  /** The events after `after`, oldest first, at most `limit`. */
  events: StoredEvent[];
  /** Names this feed: another store (a restarted memory store, another database) has another. */
  epoch: string;
  /** Events up to this seq are no longer kept: a cursor before it may have missed some (0: none dropped). */
  horizon: number;
}

/** Where a webhook endpoint's deliveries stand (src/webhooks/): shared by every instance of one store. */
export interface DeliveryState {
  /** The seq of the last event the endpoint accepted, or skipped as not its type. */
  position: number;
  /** Failed attempts at the event after `position` so far. */
  attempt: number;
  /** When the next attempt is due, as Unix time in ms (0: now). */
  dueAt: number;
  /**
   * The digest of the endpoint's entry when its deliveries stopped (a 410, or the schedule ran out); '' while they run.
   */
  stoppedEntry: string;
  /** How many times an operator set the position: a record made under another count is refused. */
  generation: number;
  /** Events of its types passed over unaccepted: past retention, or skipped by an operator. */
  skipped: number;
  /** The last attempt any instance made, if there was one. */
  lastAttempt?: DeliveryAttempt | undefined;
}

/** One attempt at a delivery, as the ledger keeps the last one. */
export interface DeliveryAttempt {
  /** When it was made, as Unix time in ms. */
  at: number;
  /** The seq of the event it sent. */
  event: number;
  /** The status the endpoint served; undefined when it did not respond. */
  status?: number | undefined;
  /** Why it failed; undefined after a 2xx. */
  error?: string | undefined;
}

/** One attempt as the attempt log keeps it (listWebhookDeliveries). */
export interface LoggedAttempt {
  /** When it was made, as Unix time in ms. */
  at: number;
  /** The seq of the event it sent. */
  event: number;
  status?: number | undefined;
  result: 'delivered' | 'failed' | 'timed_out';
  durationMs: number;
  error?: string | undefined;
  /** Asked for by resendWebhookEvent. */
  resend: boolean;
}

/** How an endpoint is claimed: the types it takes (counted when passed over), and the key its state had before. */
export interface ClaimOptions {
  /** Null for every type. */
  types: readonly PetEventType[] | null;
  /** A key to take the state of when this one has none yet (a file endpoint's URL, its key until 1.7.0). */
  adopt?: string | undefined;
}

/** The deliveries' shared ledger: an endpoint is delivered by one instance at a time, under a lease. */
export interface DeliveryLedger {
  /**
   * The endpoint's state, leased to `owner` for `leaseMs` unless another owner holds an unexpired
   * lease (then null). An endpoint seen for the first time starts after the newest event.
   */
  claim(endpoint: string, owner: string, leaseMs: number, options?: ClaimOptions): Promise<DeliveryState | null>;
  /**
   * Records the endpoint's new state, if `owner` still holds its lease and no position was set since
   * `state` was claimed (its generation): false when either changed, and nothing is recorded.
   */
  record(endpoint: string, owner: string, state: DeliveryState, leaseMs: number): Promise<boolean>;
  /**
   * The state of each of these endpoints, by endpoint, leases untouched; one not seen yet as it will
   * start (after the newest event, as claim starts it).
   */
  read(endpoints: readonly string[]): Promise<Map<string, DeliveryState>>;
  /**
   * Moves the endpoint's deliveries to stand after seq `position` (undefined: the newest event),
   * with a fresh count of attempts and not stopped, whoever holds its lease; an endpoint not seen
   * yet starts there. Its new state.
   */
  setPosition(endpoint: string, position: number | undefined): Promise<DeliveryState>;
  /** Gives the lease up (an instance closing), so another instance takes over at once. */
  release(endpoint: string, owner: string): Promise<void>;
  /** Adds an attempt to the endpoint's log. */
  logAttempt(endpoint: string, attempt: LoggedAttempt): Promise<void>;
  /** The endpoint's attempts in the order they were made: after attempt `after`, of event `event` only when given. */
  attempts(endpoint: string, query: AttemptQuery): Promise<{ attempts: NumberedAttempt[]; more: boolean }>;
  /** Asks for event seq `event` to be sent to the endpoint once more. */
  resend(endpoint: string, event: number): Promise<void>;
  /** The oldest resend asked for and not yet made. */
  nextResend(endpoint: string): Promise<{ n: number; event: number } | undefined>;
  /** Resend `n` was made. */
  resent(endpoint: string, n: number): Promise<void>;
}

export interface AttemptQuery {
  event?: number | undefined;
  after?: number | undefined;
  limit: number;
}

/** A logged attempt and its place in the log, which a page's cursor names. */
export type NumberedAttempt = LoggedAttempt & { n: number };

/**
 * Where pets live. Async so that a persistent store can replace the in-memory one
 * without touching the handlers.
 */
export interface PetStore {
  /** Stores the pet and assigns it a new id: unique, increasing, never reused. Its version is 1. */
  create(pet: NewPet): Promise<Pet>;
  /**
   * Creates the pet and records `key` with it, atomically, unless the key is recorded already: then
   * it creates nothing and returns the pet recorded with it, whatever `pet` holds (the caller
   * compares). A call made while the first call with the key is under way waits for it. A key is
   * recorded for at least the store's retention period.
   */
  createOnce(pet: NewPet, key: IdempotencyKey): Promise<CreatedOnce>;
  /** The pet with this id and its version, or null when there is none. */
  get(id: PetId, at?: ReadAt): Promise<VersionedPet | null>;
  /**
   * A page of pets in ascending id order: those after `after`, only those with `status` when it is
   * given. Its cost does not grow with the number of pets before `after`.
   */
  list(options: ListOptions): Promise<PetPage>;
  /**
   * Applies a merge patch to the pet if its version is one `precondition` allows, as one atomic step.
   * The version grows by one when a value changes; a patch that changes nothing keeps it. With a key,
   * the change and the key's record are one step too.
   */
  update(id: PetId, patch: PetPatch, precondition: Precondition, key?: ChangeKey): Promise<ChangeOutcome>;
  /** Removes the pet if its version is one `precondition` allows, as one atomic step; its id is never reused. */
  remove(id: PetId, precondition: Precondition, key?: ChangeKey): Promise<ChangeOutcome>;
  /**
   * The change feed: at most `limit` events after seq `after` (from the oldest kept when undefined),
   * oldest first. Every change the store acknowledged is in it once, recorded atomically with the
   * change, and an event is readable only once every event before it is: a reader that saw seq n
   * never later finds a new event before n.
   */
  listEvents(after: number | undefined, limit: number, at?: ReadAt): Promise<EventPage>;
  /** Deletes the events recorded more than `olderThanMs` ago; how many it deleted. */
  purgeEvents(olderThanMs: number): Promise<number>;
  /** Where webhook deliveries stand. */
  deliveries: DeliveryLedger;
  /** The webhook endpoints added through the API. */
  webhookEndpoints: WebhookEndpointStore;
  /**
   * Orders, which hold pets (beta): their moves of a pet are changes like any other. An update that
   * moves a held pet's status cancels its order (`pet_changed`), a removal too (`pet_deleted`).
   */
  orders: OrderStore;
  /**
   * Names this store's history: what the ETags and event ids it issues are tied to. A store that
   * lost or replaced its history (another database, a restore, a failover, a restarted memory
   * store) has another, so that no tag or event id is ever issued twice for different states.
   */
  epoch(): string;
  /**
   * A position at or after the commit of every write this store object has acknowledged: what a
   * write's answer reports (Store-Position), read as soon as the write returns. In memory, the
   * feed's newest seq.
   */
  writePosition(): number;
  /** Whether the store can serve now (readiness); a store without it always can. */
  ready?(): Promise<boolean>;
  /** Releases what the store holds (connections, timers); a store without it holds nothing. */
  close?(): Promise<void>;
}
