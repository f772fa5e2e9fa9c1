// The rejections of src/limits/: a request over its client's quota, or over its share of a busy
// instance, is given 429 TOO_MANY_REQUESTS with Retry-After and the fields of the IETF httpapi
// RateLimit draft (revision 11): RateLimit-Policy names the policy and its quota
// (`"default";q=100;w=1`, `"fair";q=8;w=1`), RateLimit what is left of it and when it refills
// (`"default";r=0;t=1`). Decided in the operation's onRequest hook, right after authentication,
// before anything is done for the request. A rejection is counted per client and reason; the log gets
// one line per client and reason every LOG_EVERY_MS, never one per request.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequests } from '../errors/api-errors.js';
import type { FairShare } from './fair-share.js';
import type { QuotaPolicy, Quotas } from './quotas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request was refused by a limit: its log line is left to the limiter's summary. */
    rateLimited: boolean;
  }
}

export type RejectionReason = 'quota' | 'fair-share';
const LOG_EVERY_MS = 10_000;
/**
 * A rejection is served this long after the request, not at once. A rejection costs the service about
 * what a served request does (Node's HTTP and the kernel's TCP work are most of either), so what
 * protects the others is that a flood's connections send fewer requests: each waits this long per
 * rejection. docs/performance/fair-share.md, "Fair share", has the figures with and without.
 */
export const REJECTION_DELAY_MS = 100;
/** What a client refused for its share is asked to wait: the share is measured over about a second. */
const FAIR_RETRY_SECONDS = 1;
const FAIR_MESSAGE = `The service is busy and this client holds more than its share of it; retry after ${FAIR_RETRY_SECONDS} s (Retry-After).`;
interface Rejection {
  headers: Record<string, string>;
  /** The Error body, as JSON text. */
  body: string;
}

export interface RateLimiterOptions {
  fairShare?: FairShare;
  quotas: Quotas;
  /** The quota policy in force (it changes with the keys file). */
  policy: () => QuotaPolicy;
  onRefused?: (client: string, reason: RejectionReason) => void;
  log?: FastifyBaseLogger;
  /** How often the rejections are summed up in the log. */
  logEveryMs?: number;
  /** How long a rejection waits before it is sent (REJECTION_DELAY_MS). */
  delayMs?: number;
}

/**
 * Responds with 429 TOO_MANY_REQUESTS and returns true when the request's client must wait; the caller
 * (an onRequest hook) then ends there, without calling its done.
 */
export type Limit = (request: FastifyRequest, reply: FastifyReply) => boolean;

export interface RateLimiter {
  limit: Limit;
  close(): void;
}

export function createRateLimiter({
  fairShare,
  quotas,
  policy,
  onRefused,
  log,
  logEveryMs = LOG_EVERY_MS,
  delayMs = REJECTION_DELAY_MS,
}: RateLimiterOptions): RateLimiter {
  // Rejections are cheap by design: sent from the hook, without an error per rejection (capturing its
  // stack trace was a sixth of a quota rejection's CPU) or the error handler's serializer.
  const { code, statusCode } = new TooManyRequests('');
  const bodyOf = (message: string) => JSON.stringify({ code, message, status: statusCode });
  const fairBody = bodyOf(FAIR_MESSAGE);
  const refusedSince = new Map<string, number>();
  const timer = setInterval(() => {
    for (const [key, count] of refusedSince) {
      const [client, reason] = key.split('\n') as [string, RejectionReason];
      log?.warn(
        { client, reason, refused: count },
        `refused ${count} requests of client ${client} in the last ${logEveryMs / 1000} s (${reason})`,
      );
    }
    refusedSince.clear();
  }, logEveryMs);
  timer.unref();

  function rejectionFor(client: string): Rejection | undefined {
    const over = quotas.take(client, policy());
    let reason: RejectionReason;
    let rejection: Rejection;
    if (over !== undefined) {
      const { requests, windowSeconds } = over.quota;
      const wait = over.retryAfterSeconds;
      reason = 'quota';
      rejection = {
        headers: {
          'retry-after': String(wait),
          'ratelimit-policy': `"${over.policy}";q=${requests};w=${windowSeconds}`,
          ratelimit: `"${over.policy}";r=0;t=${wait}`,
        },
        body: bodyOf(
          `This client has used its quota of ${requests} requests per ${windowSeconds} s; retry after ${wait} s (Retry-After).`,
        ),
      };
    } else if (fairShare !== undefined && !fairShare.admit(client)) {
      reason = 'fair-share';
      rejection = {
        headers: {
          'retry-after': String(FAIR_RETRY_SECONDS),
          'ratelimit-policy': `"fair";q=${fairShare.share()};w=1`,
          ratelimit: `"fair";r=0;t=${FAIR_RETRY_SECONDS}`,
        },
        body: fairBody,
      };
    } else {
      return undefined;
    }
    const key = `${client}\n${reason}`;
    refusedSince.set(key, (refusedSince.get(key) ?? 0) + 1);
    onRefused?.(client, reason);
    return rejection;
  }

  return {
    limit(request, reply) {
      const rejection = rejectionFor(request.client);
      if (rejection === undefined) return false;
      request.rateLimited = true;
      const send = () =>
        void reply.code(429).headers(rejection.headers).type('application/json; charset=utf-8').send(rejection.body);
      if (delayMs === 0) send();
      else setTimeout(send, delayMs);
      return true;
    },
    close() {
      clearInterval(timer);
      fairShare?.close();
    },
  };
}
