// Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link headers, and the sunset itself,
// computed once from the markers a deprecated operation carries in the spec: x-deprecated-at,
// x-sunset, x-replaced-by.
import { OperationGone } from '../errors/api-errors.js';
import type { Operation } from '../openapi/openapi-spec.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function deprecationHeadersOf(
  operation: Operation,
  operations: readonly Operation[],
  basePath: string,
): Record<string, string> | undefined {
  const marked = operation.object;
  if (marked.deprecated !== true) return undefined;
  const where = `openapi.yaml: deprecated operation ${operation.operationId}`;

  const headers: Record<string, string> = {
    deprecation: `@${dateOf(marked['x-deprecated-at'], `${where} needs x-deprecated-at (YYYY-MM-DD)`) / 1000}`,
  };
  if (marked['x-sunset'] !== undefined) {
    headers['sunset'] = new Date(dateOf(marked['x-sunset'], `${where}: x-sunset must be YYYY-MM-DD`)).toUTCString();
  }
  const successor = successorOf(operation, operations);
  if (successor !== undefined) headers['link'] = `<${basePath}${successor.path}>; rel="successor-version"`;
  return headers;
}

/**
 * For a deprecated operation with x-sunset or x-brownouts, the check that refuses it with 410
 * OPERATION_GONE inside each brownout window and from 00:00 UTC on the sunset date. It takes the
 * time (ms since the epoch).
 */
export function retirementCheckOf(operation: Operation, operations: readonly Operation[], basePath: string): ((now: number) => void) | undefined {
  const refusalAt = refusalOf(operation, operations, basePath);
  if (refusalAt === undefined) return undefined;
  return (now) => {
    const refusal = refusalAt(now);
    if (refusal !== undefined) throw new OperationGone(refusal);
  };
}

/**
 * The calendar retirementCheckOf keeps, for whoever else must keep it (the contract runner): at a
 * time, the message of the 410 the operation is refused with then, or undefined while it is served.
 * Undefined for an operation without x-sunset or x-brownouts. The windows are read and validated
 * here, once: a call compares the time with the bounds of the period it fell in last, and looks up
 * another only when it leaves it.
 */
export function refusalOf(operation: Operation, operations: readonly Operation[], basePath: string): ((now: number) => string | undefined) | undefined {
  const marked = operation.object;
  const where = `openapi.yaml: operation ${operation.operationId}`;
  if (marked.deprecated !== true) {
    if (marked['x-brownouts'] !== undefined) throw new Error(`${where}: x-brownouts needs deprecated: true`);
    return undefined;
  }
  const sunset = marked['x-sunset'] as string | undefined;
  const sunsetAt = sunsetOf(operation) ?? Number.POSITIVE_INFINITY;
  const deprecatedAt = dateOf(marked['x-deprecated-at'], `${where} needs x-deprecated-at (YYYY-MM-DD)`);
  const brownouts = brownoutsOf(marked['x-brownouts'], deprecatedAt, sunsetAt, where);
  if (sunset === undefined && brownouts.length === 0) return undefined;

  const successor = successorOf(operation, operations);
  const instead = successor === undefined ? '' : `; use ${successor.operationId}: ${successor.method.toUpperCase()} ${basePath}${successor.path}`;
  const then = sunset === undefined ? '' : `; it will be retired on ${sunset} (its sunset)`;
  // Consecutive periods, each up to (not including) `until`, and what a call in it is answered.
  const periods: { until: number; refusal: string | undefined }[] = [];
  for (const { start, end, endText } of brownouts) {
    periods.push({ until: start, refusal: undefined });
    periods.push({ until: end, refusal: `${operation.operationId} is unavailable during a scheduled brownout until ${endText}${then}${instead}.` });
  }
  periods.push({ until: sunsetAt, refusal: undefined });
  if (sunset !== undefined) periods.push({ until: Number.POSITIVE_INFINITY, refusal: `${operation.operationId} was retired on ${sunset} (its sunset)${instead}.` });

  let from = Number.POSITIVE_INFINITY;
  let until = Number.NEGATIVE_INFINITY;
  let refusal: string | undefined;
  return (now) => {
    if (now < from || now >= until) {
      const index = periods.findIndex((period) => now < period.until);
      from = index === 0 ? Number.NEGATIVE_INFINITY : periods[index - 1]!.until;
      ({ until, refusal } = periods[index]!);
    }
    return refusal;
  };
}

/** When a deprecated operation is retired: 00:00 UTC on its x-sunset, in ms since the epoch; undefined without one. */
export function sunsetOf(operation: Operation): number | undefined {
  const sunset = operation.object['x-sunset'];
  if (operation.object.deprecated !== true || sunset === undefined) return undefined;
  return dateOf(sunset, `openapi.yaml: operation ${operation.operationId}: x-sunset must be YYYY-MM-DD`);
}

/** The brownout windows a deprecated operation announces, as [start, end) in ms since the epoch, in order. */
export function brownoutWindowsOf(operation: Operation): { start: number; end: number }[] {
  const marked = operation.object;
  if (marked.deprecated !== true) return [];
  const where = `openapi.yaml: operation ${operation.operationId}`;
  const deprecatedAt = dateOf(marked['x-deprecated-at'], `${where} needs x-deprecated-at (YYYY-MM-DD)`);
  return brownoutsOf(marked['x-brownouts'], deprecatedAt, sunsetOf(operation) ?? Number.POSITIVE_INFINITY, where).map(({ start, end }) => ({ start, end }));
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** x-brownouts, checked: UTC windows that start before they end, overlap none, and fall between the deprecation and the sunset; sorted. */
function brownoutsOf(value: unknown, deprecatedAt: number, sunsetAt: number, where: string) {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: x-brownouts must be a list of {start, end}`);
  const windows = value.map((window: unknown, index) => {
    const label = `x-brownouts[${index}]`;
    const name = `${where}: ${label}`;
    const { start, end } = (window ?? {}) as { start?: unknown; end?: unknown };
    const instant = (text: unknown, field: string) => {
      if (typeof text !== 'string' || !RFC3339_UTC.test(text) || Number.isNaN(Date.parse(text))) {
        throw new Error(`${name}.${field} must be an RFC 3339 date-time in UTC, such as 2030-06-01T14:00:00Z`);
      }
      return Date.parse(text);
    };
    const parsed = { start: instant(start, 'start'), end: instant(end, 'end'), endText: end as string, name, label };
    if (parsed.start >= parsed.end) throw new Error(`${name} must start before it ends`);
    if (parsed.start < deprecatedAt) throw new Error(`${name} starts before x-deprecated-at`);
    if (parsed.end > sunsetAt) throw new Error(`${name} ends after x-sunset`);
    return parsed;
  });
  windows.sort((a, b) => a.start - b.start);
  for (let index = 1; index < windows.length; index++) {
    if (windows[index]!.start < windows[index - 1]!.end) throw new Error(`${windows[index - 1]!.name} and ${windows[index]!.label} overlap`);
  }
  return windows;
}

function successorOf(operation: Operation, operations: readonly Operation[]): Operation | undefined {
  const replacedBy = operation.object['x-replaced-by'];
  if (replacedBy === undefined) return undefined;
  const successor = operations.find((candidate) => candidate.operationId === replacedBy);
  if (successor === undefined || successor.path.includes('{')) {
    throw new Error(`openapi.yaml: deprecated operation ${operation.operationId}: x-replaced-by must name an operation whose path has no parameters`);
  }
  return successor;
}

function dateOf(value: unknown, problem: string): number {
  if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value))) throw new Error(problem);
  return Date.parse(`${value}T00:00:00Z`);
}
