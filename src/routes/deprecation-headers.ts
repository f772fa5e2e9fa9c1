// Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link headers, and the sunset itself,
// computed once from a deprecated operation's lifecycle record (src/openapi/lifecycle.ts).
import { OperationGone } from '../errors/api-errors.js';
import type { Lifecycle } from '../openapi/lifecycle.js';

export function deprecationHeadersOf({ deprecation }: Lifecycle, basePath: string): Record<string, string> | undefined {
  if (deprecation === undefined) return undefined;
  const headers: Record<string, string> = { deprecation: `@${deprecation.at.at / 1000}` };
  if (deprecation.sunset !== undefined) headers['sunset'] = new Date(deprecation.sunset.at).toUTCString();
  if (deprecation.replacedBy !== undefined)
    headers['link'] = `<${basePath}${deprecation.replacedBy.path}>; rel="successor-version"`;
  return headers;
}

/**
 * For a deprecated operation with x-sunset or x-brownouts, the check that refuses it with 410
 * OPERATION_GONE inside each brownout window and from 00:00 UTC on the sunset date. It takes the
 * time (Unix time in ms).
 */
export function retirementCheckOf(lifecycle: Lifecycle, basePath: string): ((now: number) => void) | undefined {
  const rejectionAt = rejectionOf(lifecycle, basePath);
  if (rejectionAt === undefined) return undefined;
  return (now) => {
    const rejection = rejectionAt(now);
    if (rejection !== undefined) throw new OperationGone(rejection);
  };
}

/**
 * The calendar retirementCheckOf keeps, for whoever else must keep it (the contract runner): at a
 * time, the message of the 410 the operation is refused with then, or undefined while it is served.
 * Undefined for an operation without x-sunset or x-brownouts. A call compares the time with the
 * bounds of the period it fell in last, and looks up another only when it leaves it.
 */
export function rejectionOf(
  { operationId, deprecation }: Lifecycle,
  basePath: string,
): ((now: number) => string | undefined) | undefined {
  if (deprecation === undefined) return undefined;
  const { sunset, brownouts, replacedBy } = deprecation;
  if (sunset === undefined && brownouts.length === 0) return undefined;

  const instead =
    replacedBy === undefined
      ? ''
      : `; use ${replacedBy.operationId}: ${replacedBy.method.toUpperCase()} ${basePath}${replacedBy.path}`;
  const then = sunset === undefined ? '' : `; it will be retired on ${sunset.text} (its sunset)`;
  // Consecutive periods, each up to (not including) `until`, and what a call in it is served.
  const periods: { until: number; rejection: string | undefined }[] = [];
  for (const { start, end, endText } of brownouts) {
    periods.push({ until: start, rejection: undefined });
    periods.push({
      until: end,
      rejection: `${operationId} is unavailable during a scheduled brownout until ${endText}${then}${instead}.`,
    });
  }
  periods.push({ until: sunset?.at ?? Number.POSITIVE_INFINITY, rejection: undefined });
  if (sunset !== undefined)
    periods.push({
      until: Number.POSITIVE_INFINITY,
      rejection: `${operationId} was retired on ${sunset.text} (its sunset)${instead}.`,
    });

  let from = Number.POSITIVE_INFINITY;
  let until = Number.NEGATIVE_INFINITY;
  let rejection: string | undefined;
  return (now) => {
    if (now < from || now >= until) {
      const index = periods.findIndex((period) => now < period.until);
      from = index === 0 ? Number.NEGATIVE_INFINITY : periods[index - 1]!.until;
      ({ until, rejection } = periods[index]!);
    }
    return rejection;
  };
}
