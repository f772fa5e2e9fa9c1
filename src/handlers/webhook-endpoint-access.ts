// What the webhook endpoint operations share: finding an endpoint by id (the file's first, then the
// API's), its entity tag and If-Match, the address rule for a URL set through the API, and the body
// an endpoint is read as.
import type { FastifyReply } from 'fastify';
import {
  EndpointManagedByFile,
  EndpointPreconditionFailed,
  EndpointPreconditionRequired,
  ValidationFailed,
  WebhookEndpointNotFound,
} from '../errors/api-errors.js';
import { entityTagOf, preconditionOf } from '../preconditions/entity-tag.js';
import type { PetStore } from '../store/pet-store.js';
import type { StoredEndpoint } from '../store/webhook-endpoint-store.js';
import type { WebhookEndpointBody } from '../types/api.js';
import { ADDRESS_RULE, resolveAll, urlBreaksRule, type Resolve } from '../webhooks/address-rule.js';
import { endpointOfStored } from '../webhooks/api-endpoints.js';
import { endpointBody } from '../webhooks/endpoint-state.js';
import type { Endpoints } from '../webhooks/endpoints.js';
import type { WebhookEndpoint } from '../webhooks/webhooks-file.js';

/** How URLs set through the API are checked (WEBHOOK_ALLOW_PRIVATE_URLS), and what the operations tell of a change. */
export interface WebhookApiOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS=on: any address, for development and tests. */
  allowPrivateUrls: boolean;
  resolve?: Resolve;
  /** Called after an endpoint was added, changed or removed here, so deliveries follow at once. */
  onChange?: () => void;
}

export interface EndpointContext {
  store: PetStore;
  file: Endpoints | undefined;
  api: WebhookApiOptions;
}

export type Found = { source: 'file'; endpoint: WebhookEndpoint } | { source: 'api'; stored: StoredEndpoint };

/** The endpoint with this id, of the file or of the API; 404 when neither has it. */
export async function findEndpoint({ store, file }: EndpointContext, id: string): Promise<Found> {
  const inFile = file?.current().find((endpoint) => endpoint.id === id);
  if (inFile !== undefined) return { source: 'file', endpoint: inFile };
  const stored = await store.webhookEndpoints.get(id);
  if (stored === null) throw new WebhookEndpointNotFound(id);
  return { source: 'api', stored };
}

/** The endpoint of the API with this id: 404 when there is none, 409 for one of the file. */
export async function apiEndpoint(context: EndpointContext, id: string): Promise<StoredEndpoint> {
  const found = await findEndpoint(context, id);
  if (found.source === 'file') throw new EndpointManagedByFile(id);
  return found.stored;
}

export const endpointOf = (found: Found, allowPrivateUrls: boolean): WebhookEndpoint =>
  found.source === 'file' ? found.endpoint : endpointOfStored(found.stored, !allowPrivateUrls);

/**
 * A strong tag of the endpoint's version: one of the API's is tagged as a pet is (its id, version and
 * the store's epoch, src/preconditions/entity-tag.ts); one of the file's by its entry as written.
 */
export function endpointTag(context: EndpointContext, found: Found): string {
  return found.source === 'file'
    ? `"f-${found.endpoint.digest.slice(0, 8)}"`
    : entityTagOf(context.store.epoch(), found.stored.id, found.stored.version);
}

/** Checks If-Match against the endpoint's tag: 428 without it, 412 (with the current tag) when none matches. */
export function checkIfMatch(
  context: EndpointContext,
  reply: FastifyReply,
  header: string | undefined,
  stored: StoredEndpoint,
): void {
  if (header === undefined) throw new EndpointPreconditionRequired();
  const allowed = preconditionOf(header, context.store.epoch(), stored.id);
  if (allowed === '*' || allowed.includes(stored.version)) return;
  changedSince(context, reply, header, stored);
}

/** 412 for a change sent with `ifMatch`, the endpoint being now `stored`: its current tag in ETag and the message. */
export function changedSince(
  context: EndpointContext,
  reply: FastifyReply,
  ifMatch: string,
  stored: StoredEndpoint,
): never {
  const current = endpointTag(context, { source: 'api', stored });
  reply.header('etag', current);
  throw new EndpointPreconditionFailed(stored.id, ifMatch, current);
}

/** A URL set through the API: http or https, without user or password, at an address the rule allows. */
export async function checkedUrl(text: string, { allowPrivateUrls, resolve = resolveAll }: WebhookApiOptions) {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationFailed('body.url is not a URL; send an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ValidationFailed(`body.url must be an http:// or https:// URL, not ${url.protocol}//`);
  if (url.username !== '' || url.password !== '')
    throw new ValidationFailed('body.url must not hold a user or password; put a token in the query instead');
  if (!allowPrivateUrls) {
    const broken = await urlBreaksRule(url, resolve);
    if (broken !== undefined) throw new ValidationFailed(`body.url: ${broken}; ${ADDRESS_RULE}`);
  }
  // Kept as written: it reads back as it was sent (up to its query), and fetch reads it as URL did.
  return text;
}

/** The endpoint as it is read, with where its deliveries stand. */
export async function bodyOf(context: EndpointContext, found: Found): Promise<WebhookEndpointBody> {
  const endpoint = endpointOf(found, context.api.allowPrivateUrls);
  const states = await context.store.deliveries.read([endpoint.key]);
  return endpointBody(endpoint, states.get(endpoint.key)!, context.store.epoch());
}
