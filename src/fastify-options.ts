// The Fastify server's own options: its logger and request log, request ids, the limits on what a
// request may be and how long it may take, and the errors Fastify meets before a route does.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { AppOptions } from './app-options.js';
import { createClientErrorHandler } from './errors/client-error-handler.js';
import type { ErrorHandler } from './errors/error-handler.js';
import { RequestLog } from './logging/request-log.js';
import { withLazyChildren } from './logging/request-logger.js';
import { requestIdGenerator } from './request-id.js';
import { traceFromHeader } from './tracing/trace-context.js';
import { formatSchemaErrors } from './validation/error-messages.js';

export const BODY_LIMIT = 16 * 1024;
/** How long a request may take to arrive whole; deploy/nginx/petstore.conf matches it. */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long an idle connection is kept open (Fastify's default, stated): longer than the upstream
 * keep-alive of the nginx configuration in deploy/, so that idle connections are closed by the
 * proxy, never under a request it is sending.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
// Longer than any request line Node accepts (16 KiB of headers), so an over-long petId reaches
// its route and is served, after authentication, as an invalid int64 rather than a bare 414.
export const MAX_PARAM_LENGTH = 16 * 1024;

export function fastifyOptions(
  options: AppOptions,
  handleError: ErrorHandler,
  headers: Readonly<Record<string, string>>,
): FastifyServerOptions {
  const logger = options.loggerInstance ?? (options.logger ? pinoLogger(options.logger) : undefined);
  return {
    ...(logger === undefined ? { logger: false } : { loggerInstance: withLazyChildren(logger) }),
    logController: new RequestLog(options.tracing?.traceOf ?? traceFromHeader),
    genReqId: requestIdGenerator(),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Only what the spec defines is served: HEAD gets a 405 like any other undefined method.
    exposeHeadRoutes: false,
    // During a graceful close, requests already on open connections are still served.
    return503OnClosing: false,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    schemaErrorFormatter: formatSchemaErrors,
    frameworkErrors: (error, request, reply) => void handleError(error, request, reply),
    clientErrorHandler: createClientErrorHandler(headers),
  };
}

function pinoLogger({ stream, ...options }: LoggerOptions & { stream?: DestinationStream }): FastifyBaseLogger {
  return (stream === undefined ? pino(options) : pino(options, stream)) as FastifyBaseLogger;
}
