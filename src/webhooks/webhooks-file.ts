// WEBHOOKS_FILE: where the deployment delivers its events (docs/events.md):
//   endpoints:
//     - url: https://shop.example/hooks/pets
//       secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw   # Standard Webhooks: whsec_ and base64
//       events: [pet.updated, pet.deleted]               # optional; every type when left out
//     - id: crm                                          # optional; derived from the url when left out
//       url: https://crm.example/hooks
//       secrets: [whsec_new…, whsec_old…]                # rotating: signed with each, newest first
// An unusable file is refused whole, with the entry's position and the reason, never a secret.
import { createHash } from 'node:crypto';
import { isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import { configYaml } from '../yaml-config.js';
import type { PetEventType } from '../store/pet-store.js';

export const EVENT_TYPES: readonly PetEventType[] = ['pet.created', 'pet.updated', 'pet.deleted'];
const FIELDS = new Set(['id', 'url', 'secret', 'secrets', 'events']);
const ID = /^[A-Za-z0-9_-]{1,64}$/;
/** How many secrets an entry may sign with at once: the new one and those it replaces. */
const MAX_SECRETS = 3;
// Standard Webhooks: the secret is base64 of 24 to 64 random bytes, after the whsec_ prefix.
const SECRET = /^whsec_([A-Za-z0-9+/]{32,88}={0,2})$/;

export interface WebhookEndpoint {
  /**
   * How operators name it (listWebhookEndpoints): the entry's `id`, else `u` and 16 hex of its URL's SHA-256; `ep_`
   * and 22 random characters for one added through the API.
   */
  id: string;
  /** Where it comes from: the webhooks file, or the API (src/webhooks/api-endpoints.ts). */
  source: 'file' | 'api';
  /** What its deliveries' state is kept under in the ledger: its id (the API's: 'api:' and it). */
  key: string;
  /** The ledger key its state had before 1.7.0 (the file's entries were kept by URL), taken over when first claimed. */
  adopt?: string;
  url: string;
  /** What deliveries are signed with, each one a signature, newest first: more than one while a secret is rotated. */
  secrets: readonly string[];
  /** When each secret stops signing (Unix ms), by index; null or absent: never. */
  expiries?: readonly (number | null)[];
  /** Whether each delivery checks its address against the rule of src/webhooks/address-rule.ts. */
  guarded?: boolean;
  description?: string;
  /** Turned off through the API: listed, not delivered to. */
  disabled?: boolean;
  /** The types it takes; undefined for every type. */
  events: ReadonlySet<PetEventType> | undefined;
  /** The types in the order an operator gave them through the API, which reads show. */
  eventOrder?: readonly PetEventType[];
  /** Names the entry as written (url, secrets, events): a change to any of them makes another digest. */
  digest: string;
  /** How metrics and logs name it: the URL without its query, which may hold a token. */
  label: string;
}

export class WebhooksFileError extends Error {}

/** The endpoints of the file's text; `name` is how messages call the file. Throws WebhooksFileError. */
export function webhooksFileEndpoints(text: string, name: string): WebhookEndpoint[] {
  const { root, fail } = configYaml(text, name, (message) => new WebhooksFileError(message));
  if (
    !isMap(root) ||
    root.items.length !== 1 ||
    String((root.items[0]!.key as { value?: unknown }).value) !== 'endpoints'
  ) {
    return fail(root, 'expected a mapping with the one field endpoints');
  }
  const list = root.get('endpoints', true);
  if (!isSeq(list)) return fail(list as Node, 'endpoints must be a list (empty for none)');
  const seen = new Set<string>();
  const ids = new Set<string>();
  return (list.items as Node[]).map((node, index) => {
    const where = `entry ${index + 1}`;
    if (!isMap(node)) return fail(node, `${where} must be a mapping (url, secret, events)`);
    for (const pair of node.items) {
      const field = String((pair.key as { value?: unknown }).value);
      if (!FIELDS.has(field))
        fail(pair.key as Node, `${where}: unknown field ${JSON.stringify(field)} (known: ${[...FIELDS].join(', ')})`);
    }
    const value = (field: string) => node.get(field, true) as (Node & { value?: unknown }) | undefined;
    const urlNode = value('url');
    let url: URL | undefined;
    try {
      url = typeof urlNode?.value === 'string' ? new URL(urlNode.value) : undefined;
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.username !== '' ||
      url.password !== ''
    ) {
      return fail(urlNode ?? node, `${where}: url is required, an http:// or https:// URL without user or password`);
    }
    if (seen.has(url.href)) fail(urlNode, `${where}: url is the url of an earlier entry; each endpoint once`);
    seen.add(url.href);
    const idNode = value('id');
    const id =
      idNode === undefined ? `u${createHash('sha256').update(url.href).digest('hex').slice(0, 16)}` : idNode.value;
    if (typeof id !== 'string' || !ID.test(id)) fail(idNode, `${where}: id must be 1 to 64 letters, digits, _ or -`);
    if (ids.has(id as string)) fail(idNode, `${where}: id ${String(id)} is the id of an earlier entry`);
    ids.add(id as string);
    const secrets = secretsOf(node, value, where, fail);
    const eventsNode = node.get('events', true);
    let events: Set<PetEventType> | undefined;
    if (eventsNode !== undefined) {
      if (!isSeq(eventsNode) || eventsNode.items.length === 0)
        fail(eventsNode as Node, `${where}: events must be a list of at least one of ${EVENT_TYPES.join(', ')}`);
      events = new Set(
        (eventsNode as unknown as { items: Node[] }).items.map((item) => {
          const type = isScalar(item) ? item.value : undefined;
          if (!EVENT_TYPES.includes(type as PetEventType))
            fail(item, `${where}: events holds ${JSON.stringify(type)}; the types are ${EVENT_TYPES.join(', ')}`);
          return type as PetEventType;
        }),
      );
    }
    const digest = createHash('sha256')
      .update(JSON.stringify([url.href, secrets, events === undefined ? null : [...events].sort()]))
      .digest('hex');
    return {
      id: id as string,
      source: 'file' as const,
      key: id as string,
      adopt: url.href,
      url: url.href,
      secrets,
      events,
      digest,
      label: `${url.host}${url.pathname}`,
    };
  });
}

const WHAT_A_SECRET_IS = 'whsec_ and the base64 of 24 to 64 random bytes (Standard Webhooks)';

/** An entry's `secret`, or its `secrets` (newest first): exactly one of them, each a Standard Webhooks secret. */
function secretsOf(
  node: YAMLMap,
  value: (field: string) => (Node & { value?: unknown }) | undefined,
  where: string,
  fail: (node: Node | null | undefined, reason: string) => never,
): string[] {
  const one = value('secret');
  const many = node.get('secrets', true) as Node | undefined;
  if (one !== undefined && many !== undefined) fail(many as Node, `${where}: secret and secrets both given; give one`);
  if (many === undefined) {
    const secret = one?.value;
    if (typeof secret !== 'string' || !SECRET.test(secret) || !sizedSecret(secret))
      fail(one ?? node, `${where}: secret is required: ${WHAT_A_SECRET_IS}; or secrets, a list of them`);
    return [secret as string];
  }
  if (!isSeq(many) || many.items.length === 0 || many.items.length > MAX_SECRETS)
    fail(many as Node, `${where}: secrets must be a list of 1 to ${MAX_SECRETS} secrets, the newest first`);
  const secrets = (many as unknown as { items: Node[] }).items.map((item, index) => {
    const secret = isScalar(item) ? item.value : undefined;
    if (typeof secret !== 'string' || !SECRET.test(secret) || !sizedSecret(secret))
      fail(item, `${where}: secrets item ${index + 1} is not ${WHAT_A_SECRET_IS}`);
    return secret as string;
  });
  if (new Set(secrets).size !== secrets.length) fail(many as Node, `${where}: secrets holds the same secret twice`);
  return secrets;
}

function sizedSecret(secret: string): boolean {
  const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
  return bytes >= 24 && bytes <= 64;
}
