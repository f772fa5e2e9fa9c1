// What the app asks of tracing. Types only: importing this loads nothing of OpenTelemetry.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StatementInstrument } from '../store/postgres/statement-instrument.js';
import type { TraceOf } from './trace-context.js';

/** The route a request matched, as metrics and spans name it. */
export interface ObservedRoute {
  /** The route's template (`/v1/pets/{petId}`); '' when no route matched. */
  route: string;
  /** The spec's operationId; '' outside the spec's operations. */
  operationId: string;
}

export interface Tracing {
  /** Starts the request's server span, a child of the caller's span when a valid traceparent came in. */
  startRequest(request: FastifyRequest, route: ObservedRoute): void;
  /** Runs `next` (the rest of the request's lifecycle) with its span current, so statements become its children. */
  enterRequest(request: FastifyRequest, next: () => void): void;
  endRequest(request: FastifyRequest, reply: FastifyReply): void;
  /** The ids the request's log line carries. */
  traceOf: TraceOf;
  /** A client span around each statement of the PostgreSQL store. */
  statementInstrument: StatementInstrument;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}
