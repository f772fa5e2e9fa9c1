// One log line per served request, written when the response has been sent: what an operator
// needs to follow traffic, and nothing a client could use against another (no headers, no
// query, no body). Fastify's own pair of lines per request (incoming, completed, with the URL and
// the remote address) is replaced through its LogController, which it calls for every request.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { traceFromHeader, type TraceOf } from '../tracing/trace-context.js';
import { unixTimeField } from './unix-time.js';
import { RequestLogger } from './request-logger.js';

const MESSAGE = 'request completed';

type LineWriter = (request: FastifyRequest, reply: FastifyReply) => void;

export class RequestLog extends LogController {
  private lineLogger: FastifyBaseLogger | undefined = undefined;
  private writeLine: LineWriter | undefined = undefined;

  /** `traceOf` gives the trace and span ids of a request's line, when it belongs to a trace. */
  constructor(private readonly traceOf: TraceOf = traceFromHeader) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Fastify's stand-in for `logger: false` has no isLevelEnabled: nothing is built for it.
    const log = request.log as Partial<Logger>;
    // A refused request is one of a flood: the limiter logs a line per client every few seconds instead.
    if (request.rateLimited) return;
    if (error) {
      log.error?.({ ...requestFields(request, reply, this.traceOf), err: error }, 'request failed while responding');
    } else if (log.isLevelEnabled?.('info') === true) {
      // A request's logger is lazy (src/logging/request-logger.ts): its line is the line the logger
      // it comes from, made once, writes.
      // Kept for a Fastify that stops asking the logger for children.
      /* c8 ignore next 3 -- the app always wraps its logger (withLazyChildren) */
      let parent = request.log instanceof RequestLogger ? request.log.parent : undefined;
      while (parent instanceof RequestLogger) parent = parent.logger;
      const writeLine = parent === undefined ? undefined : this.lineWriterFor(parent);
      if (writeLine === undefined) log.info!(requestFields(request, reply, this.traceOf), MESSAGE);
      else writeLine(request, reply);
    }
  }

  private lineWriterFor(logger: FastifyBaseLogger): LineWriter | undefined {
    if (logger !== this.lineLogger) {
      this.lineLogger = logger;
      this.writeLine = lineWriter(logger, this.requestIdLogLabel, this.traceOf);
    }
    return this.writeLine;
  }
}

// `deprecated: true` for an operation the spec marks deprecated, whatever its response (who still
// calls it, also in a brownout or after the sunset); `client` once authenticated; trace_id and
// span_id (the names OpenTelemetry's pino instrumentation uses, which log back ends correlate with
// traces) when the request belongs to a trace.
function requestFields(request: FastifyRequest, reply: FastifyReply, traceOf: TraceOf) {
  const { operationId, deprecated } = routeOf(request);
  const trace = traceOf(request);
  return {
    method: request.method,
    path: pathOf(request),
    status: reply.statusCode,
    responseTime: responseTimeOf(reply),
    ...(operationId === undefined ? {} : { operationId }),
    ...(deprecated ? { deprecated: true } : {}),
    ...(request.client === '' ? {} : { client: request.client }),
    ...(trace === undefined ? {} : { trace_id: trace.traceId, span_id: trace.spanId }),
  };
}

/** The route's operationId and deprecation, from one read of routeOptions (Fastify builds it anew at each read). */
function routeOf(request: FastifyRequest): { operationId: string | undefined; deprecated: boolean } {
  const { schema, config } = request.routeOptions;
  return {
    operationId: (schema as { operationId?: string } | undefined)?.operationId,
    deprecated: config.deprecated === true,
  };
}
// Milliseconds to the hundredth.
const hundredthsOf = (reply: FastifyReply) => Math.round(reply.elapsedTime * 100);
const responseTimeOf = (reply: FastifyReply) => hundredthsOf(reply) / 100;

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

// The request line, composed as pino composes it (its level prefix, time, base bindings, message
// key and line end, written to its stream) but without a child logger and pino's generic
// serializer, which together took most of what a line cost (docs/performance.md).
// test/http/request-log.test.ts checks that the line is the one pino writes.
type PinoInternals = Record<symbol, unknown> & { levels: { values: Record<string, number> } };
// msgPrefixSym is missing from pino's type declarations.
const symbols = pino.symbols as typeof pino.symbols & { readonly msgPrefixSym: symbol };
const FIELDS = [
  'method',
  'path',
  'status',
  'responseTime',
  'operationId',
  'deprecated',
  'client',
  'trace_id',
  'span_id',
];

/**
 * Writes the request line for a pino logger; undefined when one of its options would change that line, so pino must
 * write it.
 */
function lineWriter(logger: FastifyBaseLogger, requestIdLabel: string, traceOf: TraceOf): LineWriter | undefined {
  const internals = logger as unknown as PinoInternals;
  const formatters = internals[symbols.formattersSym] as { log?: unknown } | undefined;
  const hooks = internals[symbols.hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  const stream = internals[symbols.streamSym] as { write?: (line: string) => void; [key: symbol]: unknown } | undefined;
  const time = internals[symbols.timeSym] as (() => string) | undefined;
  /* c8 ignore next 2 -- pino sets both on every logger; one without them has none to apply */
  const serializers = (internals[symbols.serializersSym] ?? {}) as Record<string, unknown>;
  const stringifiers = (internals[symbols.stringifiersSym] ?? {}) as Record<string | symbol, unknown>;
  const plain =
    typeof stream?.write === 'function' &&
    stream[symbols.needsMetadataGsym] !== true &&
    typeof time === 'function' &&
    formatters?.log === undefined &&
    hooks !== undefined &&
    hooks.logMethod === undefined &&
    hooks.streamWrite === undefined &&
    internals[symbols.mixinSym] === undefined &&
    internals[symbols.nestedKeySym] === null &&
    internals[symbols.msgPrefixSym] === undefined &&
    stringifiers[symbols.wildcardFirstSym] === undefined &&
    [requestIdLabel, ...FIELDS].every((key) => serializers[key] === undefined && stringifiers[key] === undefined);
  if (!plain) return undefined;

  const start = (internals[symbols.lsCacheSym] as Record<number, string>)[internals.levels.values['info']!]!;
  const requestId = `,${quoted(requestIdLabel)}:`;
  const end = `,${quoted(internals[symbols.messageKeySym] as string)}:${quoted(MESSAGE)}${internals[symbols.endSym] as string}`;
  // pino's default time, Unix time in milliseconds (src/logging/unix-time.ts).
  const timeOf = time === pino.stdTimeFunctions.epochTime ? unixTimeField() : time;
  return (request, reply) => {
    const { operationId, deprecated } = routeOf(request);
    const trace = traceOf(request);
    // One template: its constant parts join, fewer strings are made than with +. Client names and
    // trace ids are in [a-z0-9_-]: nothing to escape.
    stream.write!(
      `${start}${timeOf()}${internals[symbols.chindingsSym] as string}${requestId}"${escaped(request.id)}","method":"${escaped(request.method)}","path":"${escaped(pathOf(request))}","status":${reply.statusCode},"responseTime":${hundredthsText(hundredthsOf(reply))}${operationId === undefined ? '' : `,"operationId":"${escaped(operationId)}"`}${deprecated ? ',"deprecated":true' : ''}${request.client === '' ? '' : `,"client":"${request.client}"`}${trace === undefined ? '' : `,"trace_id":"${trace.traceId}","span_id":"${trace.spanId}"`}${end}`,
    );
  };
}

const quoted = (text: string) => `"${escaped(text)}"`;

/**
 * Text as it stands between a JSON string's quotes: printable ASCII but `"` and `\\` as it is, anything else as
 * JSON.stringify (and pino) escape it.
 */
export function escaped(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return JSON.stringify(text).slice(1, -1);
  }
  return text;
}

/** A number of hundredths as JSON writes it divided by 100 (responseTimeOf), without the double-to-text conversion. */
export function hundredthsText(hundredths: number): string {
  const whole = Math.trunc(hundredths / 100);
  const rest = hundredths % 100;
  if (rest === 0) return `${whole}`;
  return rest % 10 === 0 ? `${whole}.${rest / 10}` : `${whole}.${rest < 10 ? '0' : ''}${rest}`;
}
