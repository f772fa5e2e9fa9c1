// The clock a service under test runs on, so that checks of today's answers pass whatever day they run.
import { lifecyclesOf } from '../openapi/lifecycle.js';
import type { OpenApiDocument } from '../openapi/openapi-spec.js';

const DAY_MS = 86_400_000;

/**
 * The real clock until a day before the first sunset `spec` announces, then stopped there (the real
 * clock when it announces none): a service on it answers every operation as it does today, whatever
 * day the test runs, and its time still moves until then.
 */
export function clockBeforeSunsets(spec: OpenApiDocument): () => number {
  const sunsets = [...lifecyclesOf(spec).values()].flatMap(({ deprecation }) => deprecation?.sunset?.at ?? []);
  if (sunsets.length === 0) return Date.now;
  const last = Math.min(...sunsets) - DAY_MS;
  return () => Math.min(Date.now(), last);
}
