// The endpoints every instance delivers to: the webhooks file's and those added through the API,
// which live in the store and are read again every POLL_MS (and at once after a change made on
// this instance), so that one added, changed or removed through any instance is served, or
// stops being served, within a second by all of them; and each attempt at one of the API's is
// sent as the store has it then (latest), so a rotated secret signs the next delivery.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { apiEndpointKey, type StoredEndpoint, type WebhookEndpointStore } from '../store/webhook-endpoint-store.js';
import type { Endpoints } from './endpoints.js';
import type { WebhookEndpoint } from './webhooks-file.js';

/**
 * How often each instance reads the API's endpoints, for those added (whose deliveries start where
 * they were created, so a late look loses nothing); a change or a removal applies at the next
 * attempt already (latest).
 */
export const POLL_MS = 1_000;

/** A Standard Webhooks secret: whsec_ and the base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** `ep_` and 22 random characters (128 bits): never the id of a file's entry derived from its URL (`u…`). */
export const newEndpointId = () => `ep_${randomBytes(16).toString('base64url')}`;

/**
 * The endpoint as deliveries and reads see it. Its digest names its version: any change made through
 * the API (a stopped endpoint resumes on it) starts its deliveries again from where they stand.
 */
export function endpointOfStored(stored: StoredEndpoint, guarded: boolean): WebhookEndpoint {
  const url = new URL(stored.url);
  return {
    id: stored.id,
    source: 'api',
    key: apiEndpointKey(stored.id),
    url: stored.url,
    secrets: stored.secrets.map(({ secret }) => secret),
    expiries: stored.secrets.map(({ expiresAt }) => expiresAt),
    events: stored.events === null ? undefined : new Set(stored.events),
    ...(stored.events === null ? {} : { eventOrder: stored.events }),
    digest: createHash('sha256').update(`${stored.id}:${stored.version}`).digest('hex'),
    label: `${url.host}${url.pathname}`,
    guarded,
    ...(stored.description === null ? {} : { description: stored.description }),
    disabled: stored.disabled,
  };
}

export interface DeliveredEndpoints extends Endpoints {
  /** Reads the API's endpoints again now (a change was made on this instance). */
  refresh(): Promise<void>;
}

export interface DeliveredEndpointsOptions {
  file: Endpoints | undefined;
  store: WebhookEndpointStore;
  log: FastifyBaseLogger;
  /** Whether the API's endpoints are held to the address rule at each delivery (WEBHOOK_ALLOW_PRIVATE_URLS off). */
  guarded: boolean;
  pollMs?: number;
}

/** The file's endpoints, then the API's that are enabled. */
export function deliveredEndpoints({
  file,
  store,
  log,
  guarded,
  pollMs = POLL_MS,
}: DeliveredEndpointsOptions): DeliveredEndpoints {
  const listeners: (() => void)[] = [];
  const notify = () => {
    for (const listener of listeners) listener();
  };
  let api: WebhookEndpoint[] = [];
  let failing = false;
  const refresh = async () => {
    try {
      const next = (await store.list())
        .filter((stored) => !stored.disabled)
        .map((stored) => endpointOfStored(stored, guarded));
      if (failing) log.info('webhooks: the endpoints of the API can be read again');
      failing = false;
      const digests = (endpoints: WebhookEndpoint[]) => endpoints.map((endpoint) => endpoint.digest).join();
      const changed = digests(next) !== digests(api);
      api = next;
      if (changed) notify();
    } catch (error) {
      // The endpoints read last are served meanwhile: a database away for a moment stops no delivery.
      if (!failing) log.warn({ reason: (error as Error).message }, 'webhooks: cannot read the endpoints of the API');
      failing = true;
    }
  };
  const timer = setInterval(() => void refresh(), pollMs);
  timer.unref();
  file?.onChange(notify);
  void refresh();
  return {
    current: () => [...(file?.current() ?? []), ...api],
    // A rotation, a new url or a removal made through any instance applies to the next attempt at once.
    async latest(endpoint) {
      if (endpoint.source === 'file') return endpoint;
      const stored = await store.get(endpoint.id);
      return stored === null || stored.disabled ? null : endpointOfStored(stored, guarded);
    },
    onChange: (listener) => void listeners.push(listener),
    refresh,
    close() {
      clearInterval(timer);
    },
  };
}
