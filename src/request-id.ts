// Request ids, which a client quotes from a 500 response and the logs are searched by.
import { randomBytes } from 'node:crypto';

/**
 * A random prefix per process and a counter: as unique across processes and restarts as a UUID per
 * request, without the random draw on every request (~1,400 instructions; docs/performance/earlier-findings.md,
 * "Earlier findings").
 */
export function requestIdGenerator(): () => string {
  const prefix = randomBytes(9).toString('base64url');
  let count = 0;
  return () => `${prefix}-${++count}`;
}
