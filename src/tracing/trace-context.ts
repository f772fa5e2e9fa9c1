// W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace a request belongs to, read from
// its traceparent header, for its log line. Always loaded and cheap; the OpenTelemetry SDK is loaded
// only when spans are exported (otel-tracing.ts).
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** Ids as a log line carries them: the trace the request belongs to, and the service's own span in it. */
export interface TraceIds {
  traceId: string;
  spanId: string;
}

export type TraceOf = (request: FastifyRequest) => TraceIds | undefined;

// version-traceid-parentid-flags, lowercase hex. A later version may append fields after a '-'.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ZEROS = /^0+$/;

/** The trace id of a valid traceparent value; undefined for anything else, which is ignored (never a 400). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  if (traceparent === undefined) return undefined;
  const parts = TRACEPARENT.exec(traceparent);
  if (parts === null) return undefined;
  const [, version, traceId, parentId, rest] = parts as unknown as [string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has exactly these four fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(parentId)) return undefined;
  return traceId;
}

/**
 * Without tracing: the caller's trace id, when a valid traceparent came in, and a span id of the
 * service's own, made for the line (nothing else records the span).
 */
export const traceFromHeader: TraceOf = (request) => {
  const header = request.headers.traceparent;
  const traceId = traceIdOf(typeof header === 'string' ? header : undefined);
  return traceId === undefined ? undefined : { traceId, spanId: randomBytes(8).toString('hex') };
};
