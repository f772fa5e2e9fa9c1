// The in-memory store's webhook ledger and the endpoints added through the API: those of one
// process. Leases still apply, so that it behaves as the shared one does.
import type { MemoryEventLog } from './memory-events.js';
import type { DeliveryLedger, DeliveryState, NumberedAttempt, PetEventType } from './pet-store.js';
import { apiEndpointKey, type StoredEndpoint, type WebhookEndpointStore } from './webhook-endpoint-store.js';

/** The most attempts kept per endpoint: the oldest go first beyond it, as the feed's events do. */
const MAX_ATTEMPTS = 10_000;

const fresh = (position: number): DeliveryState => ({
  position,
  attempt: 0,
  dueAt: 0,
  stoppedEntry: '',
  generation: 0,
  skipped: 0,
  lastAttempt: undefined,
});

const copy = ({
  position,
  attempt,
  dueAt,
  stoppedEntry,
  generation,
  skipped,
  lastAttempt: last,
}: DeliveryState): DeliveryState => ({
  position,
  attempt,
  dueAt,
  stoppedEntry,
  generation,
  skipped,
  lastAttempt:
    last === undefined ? undefined : { at: last.at, event: last.event, status: last.status, error: last.error },
});

type Kept = DeliveryState & { owner: string; leasedUntil: number; types: readonly PetEventType[] | null };

export interface MemoryWebhooks {
  deliveries: DeliveryLedger;
  webhookEndpoints: WebhookEndpointStore;
}

export function memoryWebhooks(events: MemoryEventLog, now: () => number = Date.now): MemoryWebhooks {
  const states = new Map<string, Kept>();
  const attempts = new Map<string, NumberedAttempt[]>();
  const resends = new Map<string, { n: number; event: number }[]>();
  let counter = 0;
  const latest = () => events.latest;
  const start = (position: number): Kept => ({ ...fresh(position), owner: '', leasedUntil: 0, types: null });
  // Events dropped before an endpoint accepted them are counted as passed over, as the purge counts them in PostgreSQL.
  events.onDrop((through) => {
    for (const state of states.values())
      if (state.position < through) state.skipped += events.count(state.position, through, state.types);
  });

  const deliveries: DeliveryLedger = {
    async claim(endpoint, owner, leaseMs, options) {
      let state = states.get(endpoint);
      if (state === undefined) {
        const adopted = options?.adopt === undefined ? undefined : states.get(options.adopt);
        state = start(adopted?.position ?? latest());
        states.set(endpoint, state);
      }
      if (state.owner !== owner && state.leasedUntil > now()) return null;
      state.owner = owner;
      state.leasedUntil = now() + leaseMs;
      if (options !== undefined) state.types = options.types;
      return copy(state);
    },
    async record(endpoint, owner, recorded, leaseMs) {
      const state = states.get(endpoint);
      if (state === undefined || state.owner !== owner || state.generation !== recorded.generation) return false;
      Object.assign(state, copy(recorded), { skipped: state.skipped, leasedUntil: now() + leaseMs });
      return true;
    },
    async read(endpoints) {
      const found = new Map<string, DeliveryState>();
      for (const endpoint of endpoints) found.set(endpoint, copy(states.get(endpoint) ?? fresh(latest())));
      return found;
    },
    async setPosition(endpoint, at) {
      const position = at ?? latest();
      const state = states.get(endpoint) ?? start(position);
      const skipped = state.skipped + events.count(state.position, position, state.types);
      Object.assign(state, {
        position,
        attempt: 0,
        dueAt: 0,
        stoppedEntry: '',
        skipped,
        generation: state.generation + 1,
      });
      states.set(endpoint, state);
      return copy(state);
    },
    async release(endpoint, owner) {
      const state = states.get(endpoint);
      if (state?.owner === owner) state.leasedUntil = 0;
    },
    async logAttempt(endpoint, attempt) {
      const log = attempts.get(endpoint) ?? [];
      log.push({ ...attempt, n: ++counter });
      if (log.length > MAX_ATTEMPTS) log.shift();
      attempts.set(endpoint, log);
    },
    async attempts(endpoint, { event, after = 0, limit }) {
      const found = (attempts.get(endpoint) ?? []).filter(
        (attempt) => attempt.n > after && (event === undefined || attempt.event === event),
      );
      return { attempts: found.slice(0, limit).map((attempt) => ({ ...attempt })), more: found.length > limit };
    },
    async resend(endpoint, event) {
      resends.set(endpoint, [...(resends.get(endpoint) ?? []), { n: ++counter, event }]);
    },
    async nextResend(endpoint) {
      const next = resends.get(endpoint)?.[0];
      return next === undefined ? undefined : { ...next };
    },
    async resent(endpoint, n) {
      resends.set(
        endpoint,
        (resends.get(endpoint) ?? []).filter((resend) => resend.n !== n),
      );
    },
  };

  const endpoints = new Map<string, StoredEndpoint>();
  const copyEndpoint = (endpoint: StoredEndpoint): StoredEndpoint => structuredClone(endpoint);
  const webhookEndpoints: WebhookEndpointStore = {
    async add(id, fields) {
      const endpoint = { ...structuredClone(fields), id, version: 1, createdAt: now() };
      endpoints.set(id, endpoint);
      return copyEndpoint(endpoint);
    },
    async get(id) {
      const endpoint = endpoints.get(id);
      return endpoint === undefined ? null : copyEndpoint(endpoint);
    },
    async list() {
      return [...endpoints.values()].map(copyEndpoint);
    },
    async replace(id, version, fields) {
      const endpoint = endpoints.get(id);
      if (endpoint === undefined) return null;
      if (endpoint.version !== version) return { current: copyEndpoint(endpoint) };
      Object.assign(endpoint, structuredClone(fields), { version: version + 1 });
      return copyEndpoint(endpoint);
    },
    async remove(id, version) {
      const endpoint = endpoints.get(id);
      if (endpoint === undefined) return null;
      if (endpoint.version !== version) return { current: copyEndpoint(endpoint) };
      endpoints.delete(id);
      const key = apiEndpointKey(id);
      states.delete(key);
      attempts.delete(key);
      resends.delete(key);
      return true;
    },
  };
  return { deliveries, webhookEndpoints };
}
