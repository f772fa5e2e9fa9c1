// An event's id is its feed's epoch and its seq: `9b1d3f0a-42`. Clients treat it as opaque
// (openapi.yaml, EventId); the epoch tells a cursor of this feed from one of a feed since replaced.
// Also the event as it goes out, the same in the feed and in the webhooks.
import type { StoredEvent } from '../store/pet-store.js';

export interface FeedPosition {
  epoch: string;
  seq: number;
}

export function eventIdOf(epoch: string, seq: number): string {
  return `${epoch}-${seq}`;
}

/** The position an id names; the spec's pattern has been checked, so only the seq's range is left. */
export function positionOfEventId(id: string): FeedPosition | undefined {
  const dash = id.indexOf('-');
  const seq = Number(id.slice(dash + 1));
  return Number.isSafeInteger(seq) ? { epoch: id.slice(0, dash), seq } : undefined;
}

/**
 * Why `position` names nothing the feed still keeps, as a 410's message goes on after the id: it is
 * of another epoch (the store was replaced), or before `oldest`, the first position still readable
 * (by default the purge horizon, where a cursor may stand; an event must be after it). Undefined
 * when it is kept.
 */
export function expiryOf(
  position: FeedPosition,
  feed: { epoch: string; horizon: number },
  oldest = feed.horizon,
): string | undefined {
  if (position.epoch !== feed.epoch) return 'is from a feed this store no longer keeps (the store was replaced)';
  if (position.seq < oldest) return `is older than the events kept (from ${eventIdOf(feed.epoch, oldest)} on)`;
  return undefined;
}

/** An event as the feed and the webhooks send it (openapi.yaml, PetEvent). */
export function eventBody(epoch: string, { seq, type, petId, version, occurredAt, pet }: StoredEvent) {
  const body = { id: eventIdOf(epoch, seq), type, petId, version, occurredAt: new Date(occurredAt).toISOString() };
  return pet === undefined ? body : { ...body, pet };
}
