// An event's id is its feed's epoch and its seq: `9b1d3f0a-42`. Clients treat it as opaque
// (openapi.yaml, EventId); the epoch tells a cursor of this feed from one of a feed since replaced.

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
