// Webhook endpoints added through the API (createWebhookEndpoint): kept in the store, so that every
// instance of one store delivers to them. Where their deliveries stand is the ledger's
// (DeliveryLedger), keyed by endpointKey.
import type { PetEventType } from './event-type.js';

/** One signing secret; the newest has no end, one being rotated out ends at `expiresAt` (Unix ms). */
export interface EndpointSecret {
  secret: string;
  expiresAt: number | null;
}

/** What an operator sets of an endpoint, and its secrets. */
export interface EndpointFields {
  url: string;
  /** The types it takes; null for every type. */
  events: PetEventType[] | null;
  description: string | null;
  disabled: boolean;
  /** Newest first. */
  secrets: EndpointSecret[];
}

export interface StoredEndpoint extends EndpointFields {
  id: string;
  /** 1 when added, one more at each change: what its entity tag names. */
  version: number;
  /** Unix ms. */
  createdAt: number;
}

/** A change refused because the endpoint is no longer at the version it was read at. */
export interface Stale {
  current: StoredEndpoint;
}

export interface WebhookEndpointStore {
  add(id: string, fields: EndpointFields): Promise<StoredEndpoint>;
  get(id: string): Promise<StoredEndpoint | null>;
  /** Every endpoint, oldest first. */
  list(): Promise<StoredEndpoint[]>;
  /** Sets the fields if the endpoint is at `version`: the endpoint as changed, null if there is none. */
  replace(id: string, version: number, fields: EndpointFields): Promise<StoredEndpoint | Stale | null>;
  /** Removes the endpoint, its deliveries' state, attempts and resends, if it is at `version`. */
  remove(id: string, version: number): Promise<true | Stale | null>;
}

/** The ledger's key of an endpoint of the API: apart from the file's ids, which cannot hold a colon. */
export const apiEndpointKey = (id: string) => `api:${id}`;
