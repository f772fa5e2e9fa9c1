// The Pet Store's sunset calendar, read from openapi.yaml by the checker's own code (never the
// service's lifecycle module): a deprecated operation is retired, and responds with 410, inside each of
// its x-brownouts windows and from 00:00 UTC on its x-sunset date.
import { type OpenApiDocument, type Operation, operationsOf } from 'openapi-contract-engine';

const DAY_MS = 86_400_000;

const sunsetOf = (operation: Operation): number | undefined => {
  const sunset = operation.object['x-sunset'];
  return typeof sunset === 'string' ? Date.parse(`${sunset}T00:00:00Z`) : undefined;
};

/** Whether `operation` is retired at `now`: past its sunset, or inside a brownout window. */
export function retiredAt(operation: Operation, now: number): boolean {
  const sunset = sunsetOf(operation);
  if (sunset !== undefined && now >= sunset) return true;
  const brownouts = (operation.object['x-brownouts'] ?? []) as { start: string; end: string }[];
  return brownouts.some(({ start, end }) => Date.parse(start) <= now && now < Date.parse(end));
}

/**
 * The real clock until a day before the first sunset `spec` announces, then stopped there (the real
 * clock when it announces none): a service on it responds to every operation as it does today, whatever
 * day the test runs, and its time still moves until then.
 */
export function clockBeforeSunsets(spec: OpenApiDocument): () => number {
  const sunsets = operationsOf(spec).flatMap((operation) => sunsetOf(operation) ?? []);
  if (sunsets.length === 0) return Date.now;
  const last = Math.min(...sunsets) - DAY_MS;
  return () => Math.min(Date.now(), last);
}
