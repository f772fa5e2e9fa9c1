// For receivers of the service's webhooks: checks a delivery's Standard Webhooks signature and
// returns its event, int64 fields exact. The check is the specification's, done with WebCrypto so
// that the client keeps no dependencies (docs/decisions.md); test/client/verify-delivery.test.ts
// holds it to what the `standardwebhooks` package signs and refuses.
import type { components } from '../../generated/client-api.js';
import { parseExact } from './exact-json.js';

type PetEvent = components['schemas']['PetEvent'];

/** The delivery is not one the service signed with this secret, or not a recent one. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300: Standard Webhooks'). */
  toleranceS?: number;
  /** Now, as Unix time in ms (Date.now unless a test moves it). */
  now?: number;
}

type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const header = (headers: HeaderSource, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
};

/**
 * The event of a delivery, once its signature verifies under `secret` (`whsec_…`, the endpoint's
 * entry in the webhooks file) and its timestamp is recent. `body` is the request body exactly as
 * received (text): a body parsed and written again no longer verifies.
 */
export async function verifyDelivery(
  secret: string,
  body: string,
  headers: HeaderSource,
  options: VerifyOptions = {},
): Promise<PetEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceS ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is not within the tolerance of now');
  const key = await crypto.subtle.importKey(
    'raw',
    fromBase64(secret.replace(/^whsec_/, '')),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  // A space-separated list: a sender rotating its secret signs with both. Verify is constant-time.
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (
      version === 'v1' &&
      signature !== undefined &&
      (await crypto.subtle.verify('HMAC', key, fromBase64(signature), signed))
    ) {
      return parseExact(body) as PetEvent;
    }
  }
  throw new WebhookVerificationError('no webhook-signature verifies under this secret');
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
