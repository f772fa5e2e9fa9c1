// Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link headers, computed once from
// the markers a deprecated operation carries in the spec: x-deprecated-at, x-sunset, x-replaced-by.
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
  const replacedBy = marked['x-replaced-by'];
  if (replacedBy !== undefined) {
    const successor = operations.find((candidate) => candidate.operationId === replacedBy);
    if (successor === undefined || successor.path.includes('{')) {
      throw new Error(`${where}: x-replaced-by must name an operation whose path has no parameters`);
    }
    headers['link'] = `<${basePath}${successor.path}>; rel="successor-version"`;
  }
  return headers;
}

function dateOf(value: unknown, problem: string): number {
  if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value))) throw new Error(problem);
  return Date.parse(`${value}T00:00:00Z`);
}
