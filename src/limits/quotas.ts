// Quotas: a rate (requests per window) for a named client, and a default for the others, set in the
// keys file (src/auth/keys-file.ts). Each instance enforces the quota divided by the number of live
// instances (src/store/postgres/instances.ts; one without PostgreSQL), with a token bucket: the
// instances behind a balancer that spreads a client's requests (nginx's round robin) together
// accept about the quota, and none needs a round trip per request to agree.

export interface Quota {
  requests: number;
  windowSeconds: number;
}

export interface QuotaPolicy {
  /** For every client without a quota of its own; none: those clients have no quota. */
  default?: Quota;
  clients: ReadonlyMap<string, Quota>;
}

export const NO_QUOTAS: QuotaPolicy = { clients: new Map() };

/** A rejection: which policy, and seconds until a request would be admitted. */
export interface OverQuota {
  policy: 'default' | 'client';
  quota: Quota;
  retryAfterSeconds: number;
}

export interface Quotas {
  /** Takes one request from the client's bucket; undefined when admitted. */
  take(client: string, policy: QuotaPolicy): OverQuota | undefined;
}

interface Bucket {
  quota: Quota;
  instances: number;
  tokens: number;
  at: number;
}

/** Parses `100/1s`, `6000/1m`, `50000/1h`: requests per window. */
export function parseQuota(text: string): Quota | undefined {
  const match = /^(\d{1,9})\/(\d{1,6})(s|m|h)$/.exec(text);
  if (match === null) return undefined;
  const requests = Number(match[1]);
  const windowSeconds = Number(match[2]) * { s: 1, m: 60, h: 3600 }[match[3] as 's' | 'm' | 'h'];
  return requests >= 1 && windowSeconds >= 1 ? { requests, windowSeconds } : undefined;
}

export function createQuotas(instances: () => number, clock: () => number = performance.now.bind(performance)): Quotas {
  const buckets = new Map<string, Bucket>();
  return {
    take(client, policy) {
      const own = policy.clients.get(client);
      const quota = own ?? policy.default;
      if (quota === undefined) return undefined;
      const now = clock();
      const live = Math.max(1, instances());
      let bucket = buckets.get(client);
      // A new quota, or a new number of instances, starts a full bucket of the new size.
      if (bucket === undefined || bucket.quota !== quota || bucket.instances !== live) {
        bucket = { quota, instances: live, tokens: quota.requests / live, at: now };
        buckets.set(client, bucket);
      }
      const capacity = quota.requests / live;
      const perMs = capacity / (quota.windowSeconds * 1000);
      bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
      bucket.at = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return undefined;
      }
      return {
        policy: own === undefined ? 'default' : 'client',
        quota,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)),
      };
    },
  };
}
