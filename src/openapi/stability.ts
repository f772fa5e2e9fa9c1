// An operation's stability marker, `x-stability` (experimental, beta or stable; stable when absent):
// the promise a release makes to that operation's clients. npm run compat holds the service to it
// (docs/compatibility.md), Swagger UI shows it, and the Spectral rule petstore-stability checks it.
import type { Operation } from './openapi-spec.js';

/** From the least promise to the most; a release's promise may only grow in later versions. */
export const STABILITIES = ['experimental', 'beta', 'stable'] as const;
export type Stability = (typeof STABILITIES)[number];

export function stabilityOf(operation: Pick<Operation, 'operationId' | 'object'>): Stability {
  const marker = operation.object['x-stability'] ?? 'stable';
  if (!(STABILITIES as readonly unknown[]).includes(marker)) {
    throw new Error(`openapi.yaml: ${operation.operationId} has x-stability ${JSON.stringify(marker)}; it must be one of ${STABILITIES.join(', ')}`);
  }
  return marker as Stability;
}

/** Whether `now` promises less than `before` did: stable made beta, beta made experimental. */
export function isLowered(before: Stability, now: Stability): boolean {
  return STABILITIES.indexOf(now) < STABILITIES.indexOf(before);
}
