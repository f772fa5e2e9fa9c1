// One attempt at a delivery: the event POSTed, signed as Standard Webhooks defines with each live
// secret, to the endpoint's URL; an endpoint of the API only at an address the rule allows
// (src/webhooks/address-rule.ts), checked as the connection is made.
import { stringify } from 'lossless-json';
import type { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import type { eventBody } from '../events/event-id.js';
import { ADDRESS_RULE, lookupOutside, refusedAddress } from './address-rule.js';
import type { WebhookEndpoint } from './webhooks-file.js';

export type DeliveryResult = 'delivered' | 'failed' | 'gone';

/** A signer of the endpoint, and when it stops signing (Unix ms; null: never). */
export interface Signer {
  webhook: Webhook;
  expiresAt: number | null;
}

export interface AttemptOutcome {
  result: DeliveryResult;
  reason?: string;
  status?: number;
  retryAfterMs?: number;
  timedOut?: boolean;
  durationMs: number;
}

export interface AttemptContext {
  fetch: typeof globalThis.fetch;
  now: () => number;
  timeoutMs: number;
  closing: AbortSignal;
}

// Connections of the API's endpoints resolve their host through the rule: what is checked is what is connected to.
const outside = new Agent({ connect: { lookup: lookupOutside } });

/** One attempt: whether the endpoint accepted it (2xx), refused it for good (410), or failed. */
export async function attempt(
  { fetch, now, timeoutMs, closing }: AttemptContext,
  endpoint: WebhookEndpoint,
  signers: readonly Signer[],
  body: ReturnType<typeof eventBody>,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  const payload = stringify(body)!;
  const signed = new Date(now());
  const host = new URL(endpoint.url).hostname.replace(/^\[(.*)\]$/, '$1');
  const refused = endpoint.guarded === true ? refusedAddress(host) : undefined;
  if (refused !== undefined)
    return { result: 'failed', reason: `not sent: ${refused}; ${ADDRESS_RULE}`, durationMs: duration() };
  // Held here until the attempt ends: on Node 20, a timeout signal that only AbortSignal.any
  // refers to can be garbage-collected before it fires, and the attempt then waits for ever
  // (nodejs/node#57736). test/webhooks/delivery-failures.test.ts forces collections to check it.
  const timeout = AbortSignal.timeout(timeoutMs);
  // One signature per live secret, newest first (Standard Webhooks): a receiver holding any one verifies.
  const live = signers.filter(({ expiresAt }) => expiresAt === null || expiresAt > signed.getTime());
  try {
    const init = {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'petstore-webhooks',
        'webhook-id': body.id,
        'webhook-timestamp': String(Math.floor(signed.getTime() / 1000)),
        'webhook-signature': live.map(({ webhook }) => webhook.sign(body.id, signed, payload)).join(' '),
      },
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, closing]),
      ...(endpoint.guarded === true ? { dispatcher: outside } : {}),
    };
    // Node's fetch takes undici's dispatcher; its types know only those of the undici it bundles.
    const response = await fetch(endpoint.url, init as unknown as RequestInit);
    await response.body?.cancel();
    const { status } = response;
    if (status >= 200 && status < 300) return { result: 'delivered', status, durationMs: duration() };
    if (status === 410) return { result: 'gone', reason: 'responded with 410', status, durationMs: duration() };
    const retryAfterMs =
      response.status === 429 || response.status === 503
        ? retryAfterOf(response.headers.get('retry-after'), now())
        : undefined;
    return {
      result: 'failed',
      reason: `responded with ${status}`,
      status,
      durationMs: duration(),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (timeout.aborted)
      return { result: 'failed', reason: `no response within ${timeoutMs} ms`, timedOut: true, durationMs: duration() };
    const reason =
      cause?.code === 'EREFUSEDADDRESS'
        ? `not sent: ${cause.message!}`
        : `not reached (${cause?.code ?? (error as Error).message})`;
    return { result: 'failed', reason, durationMs: duration() };
  }
}

/** Retry-After (RFC 9110, 10.2.3) in ms from now: delay-seconds or an HTTP-date; undefined if absent or unreadable. */
export function retryAfterOf(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) || !/GMT$/.test(text) ? undefined : Math.max(0, date - now);
}
