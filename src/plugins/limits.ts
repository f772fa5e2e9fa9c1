// How much each caller may ask: its key's quotas, divided among the live instances, and, when the
// instance is busy, its fair share of the work; a caller over either is refused with 429
// (src/limits/).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createFairShare } from '../limits/fair-share.js';
import { createQuotas } from '../limits/quotas.js';
import { createRateLimiter, type RateLimiter } from '../limits/rate-limiter.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    limiter: RateLimiter;
  }
}

interface LimitsOptions {
  fairShare: boolean;
  instances: () => number;
  metrics: ServiceMetrics | undefined;
  rejectionDelayMs: number | undefined;
}

async function limits(app: FastifyInstance, { fairShare, instances, metrics, rejectionDelayMs }: LimitsOptions) {
  const keys = app.apiKeys;
  const limiter = createRateLimiter({
    ...(fairShare ? { fairShare: createFairShare() } : {}),
    quotas: createQuotas(instances),
    policy: () => keys.table.quotas,
    ...(metrics === undefined ? {} : { onRefused: metrics.rateLimited }),
    ...(rejectionDelayMs === undefined ? {} : { delayMs: rejectionDelayMs }),
    log: app.log,
  });
  app.decorate('limiter', limiter);
  app.addHook('onClose', async () => limiter.close());
}

export default fp(limits, { name: 'limits', dependencies: ['security'] });
