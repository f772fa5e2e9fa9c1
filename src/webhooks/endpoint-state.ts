// An endpoint as operators see it (listWebhookEndpoints, getWebhookEndpoint…): its entry, and where
// its deliveries stand in the ledger. Never a secret, nor the URL's query (it may hold a token).
import { eventIdOf } from '../events/event-id.js';
import type { DeliveryState } from '../store/pet-store.js';
import type { WebhookEndpointBody as EndpointBody } from '../types/api.js';
import { EVENT_TYPES, type WebhookEndpoint } from './webhooks-file.js';

/** What the spec's WebhookEndpoint says of `endpoint`, whose deliveries stand at `state` in the feed of `epoch`. */
export function endpointBody(endpoint: WebhookEndpoint, state: DeliveryState, epoch: string): EndpointBody {
  const url = new URL(endpoint.url);
  // The API's as the operator wrote them (a write reads back as it was sent); the file's as parsed.
  const stopped = state.stoppedEntry === endpoint.digest;
  const retrying = !stopped && state.attempt > 0;
  const body: EndpointBody = {
    id: endpoint.id,
    source: endpoint.source,
    url: endpoint.source === 'api' ? endpoint.url.split(/[?#]/)[0]! : `${url.origin}${url.pathname}`,
    ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
    disabled: endpoint.disabled === true,
    events: [
      ...(endpoint.eventOrder ??
        EVENT_TYPES.filter((type) => endpoint.events === undefined || endpoint.events.has(type))),
    ],
    state: stopped ? 'stopped' : retrying ? 'retrying' : 'active',
    after: eventIdOf(epoch, state.position),
    skipped: state.skipped,
  };
  // A failed attempt always sets when the next one is due (src/webhooks/deliveries.ts, nextState).
  if (retrying) body.nextAttemptAt = new Date(state.dueAt).toISOString();
  const last = state.lastAttempt;
  if (last !== undefined) {
    body.lastAttempt = { at: new Date(last.at).toISOString(), event: eventIdOf(epoch, last.event) };
    if (last.status !== undefined) body.lastAttempt.status = last.status;
    if (last.error !== undefined) body.lastAttempt.error = last.error;
  }
  return body;
}
