// Every error leaves through here, in the spec's Error shape, whatever raised it.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody, ErrorCode } from '../types/api.js';
import { BadRequest, InternalError, PayloadTooLarge, RETRY_AFTER_SECONDS, ValidationFailed } from './api-errors.js';

export interface ApiError extends Error {
  code: ErrorCode;
  statusCode: number;
}

export interface ErrorHandlerOptions {
  /** The codes the spec documents on `Error.code`; anything else is an internal error. */
  errorCodes: ReadonlySet<string>;
  bodyLimit: number;
  /** Sent on every error response (security headers). */
  headers: Readonly<Record<string, string>>;
  /** Told of every 503 response (the database could not be reached). */
  onUnavailable?: () => void;
}

export function createErrorHandler(options: ErrorHandlerOptions) {
  const isApiError = (error: FastifyError): error is FastifyError & ApiError =>
    options.errorCodes.has(error.code) && typeof error.statusCode === 'number';

  // Fastify's own request errors, said in the service's words. (A body's media type is checked per
  // operation before Fastify parses it: src/routes/body-presence.ts.)
  const translate = (error: FastifyError): ApiError | undefined => {
    if (error.validation) return new ValidationFailed(error.message);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new PayloadTooLarge(options.bodyLimit);
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return new BadRequest('The Content-Length header does not match the body.');
      case 'FST_ERR_BAD_URL':
        return new BadRequest('The URL is not valid: a percent-encoded sequence cannot be decoded.');
      default:
        // A request error Fastify raises that is not mapped above is still the client's to fix.
        return isClientError(error) ? new BadRequest(error.message) : undefined;
    }
  };

  return function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    let apiError = isApiError(error) ? error : translate(error);
    if (apiError === undefined) {
      // Logged in full with the request id; the client learns only the id.
      request.log.error({ err: error }, 'request failed unexpectedly');
      apiError = new InternalError(request.id);
    }
    if (apiError.code === 'SERVICE_UNAVAILABLE') options.onUnavailable?.();
    return sendError(reply.headers(options.headers), apiError);
  };
}

function sendError(reply: FastifyReply, error: ApiError) {
  const body: ErrorBody = { code: error.code, message: error.message, status: error.statusCode };
  if (error.code === 'SERVICE_UNAVAILABLE') reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(body);
}

function isClientError(error: FastifyError): boolean {
  return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
}

/** What createErrorHandler gives: Fastify's error handler, which frameworkErrors calls too. */
export type ErrorHandler = ReturnType<typeof createErrorHandler>;
