// Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link headers, and the sunset itself,
// computed once from the markers a deprecated operation carries in the spec: x-deprecated-at,
// x-sunset, x-replaced-by.
import { OperationGone } from '../errors/api-errors.js';
import type { Operation } from '../spec/openapi-spec.js';

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
 * For a deprecated operation with x-sunset, the check that refuses it from 00:00 UTC on that date:
 * it takes the time (ms since the epoch) and throws 410 OPERATION_GONE once the sunset has come.
 * The instant and the message are fixed here, so a request compares one number.
 */
export function sunsetCheckOf(operation: Operation, operations: readonly Operation[], basePath: string): ((now: number) => void) | undefined {
  const marked = operation.object;
  if (marked.deprecated !== true || marked['x-sunset'] === undefined) return undefined;
  const sunset = marked['x-sunset'] as string;
  const sunsetAt = dateOf(sunset, `openapi.yaml: deprecated operation ${operation.operationId}: x-sunset must be YYYY-MM-DD`);
  const successor = successorOf(operation, operations);
  const instead = successor === undefined ? '' : `; use ${successor.operationId}: ${successor.method.toUpperCase()} ${basePath}${successor.path}`;
  const reason = `${operation.operationId} was retired on ${sunset} (its sunset)${instead}.`;
  return (now) => {
    if (now >= sunsetAt) throw new OperationGone(reason);
  };
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
