// Every error the service sends is declared here, once, with its stable code and HTTP status.
import createError from '@fastify/error';
import type { ErrorCode } from '../types/api.js';

function apiError<Args extends unknown[]>(code: ErrorCode, message: string, status: number) {
  return createError<ErrorCode, number, Args>(code, message, status);
}

export const BadRequest = apiError<[reason: string]>('BAD_REQUEST', '%s', 400);
export const InvalidJson = apiError<[reason: string]>('INVALID_JSON', 'The body is not valid JSON: %s.', 400);
export const BodyRequired = apiError<[mediaTypes: string]>(
  'BODY_REQUIRED',
  'This operation needs a body (Content-Type: %s) and none was sent.',
  400,
);
export const BodyNotAllowed = apiError<[]>(
  'BODY_NOT_ALLOWED',
  'This operation takes no body; send the request without one.',
  400,
);
export const ValidationFailed = apiError<[details: string]>('VALIDATION_FAILED', '%s', 400);
export const Unauthorized = apiError<[reason: string]>('UNAUTHORIZED', '%s', 401);
export const InsufficientScope = apiError<[needed: string]>(
  'INSUFFICIENT_SCOPE',
  'This operation needs %s, which this API key does not have.',
  403,
);
export const PetNotFound = apiError<[id: string]>('PET_NOT_FOUND', 'No pet has id %s.', 404);
export const OrderNotFound = apiError<[id: string]>('ORDER_NOT_FOUND', 'No order has id %s.', 404);
export const PetUnavailable = apiError<[reason: string]>('PET_UNAVAILABLE', '%s', 409);
export const OrderLimitReached = apiError<[limit: string]>(
  'ORDER_LIMIT_REACHED',
  'This client already holds %s placed orders, the most allowed at once; complete or cancel one to free a place.',
  409,
);
export const OrderStateConflict = apiError<[id: string, status: string, allowed: string]>(
  'ORDER_STATE_CONFLICT',
  'Order %s is %s; %s.',
  409,
);
export const OrderKeyReused = apiError<[operationId: string]>(
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used for another %s request; send a new key for a new request.',
  422,
);
export const WebhookEndpointNotFound = apiError<[id: string]>(
  'WEBHOOK_ENDPOINT_NOT_FOUND',
  'No webhook endpoint has id %s; listWebhookEndpoints lists them.',
  404,
);
export const EndpointManagedByFile = apiError<[id: string]>(
  'ENDPOINT_MANAGED_BY_FILE',
  'Webhook endpoint %s is an entry of the webhooks file (WEBHOOKS_FILE); change it there.',
  409,
);
export const EndpointPreconditionFailed = apiError<[id: string, sent: string, current: string]>(
  'PRECONDITION_FAILED',
  'Webhook endpoint %s changed since you read it: If-Match %s is not its current entity tag %s; read it again and retry with its ETag.',
  412,
);
export const EndpointPreconditionRequired = apiError<[]>(
  'PRECONDITION_REQUIRED',
  'This operation needs If-Match: send the ETag of the webhook endpoint as you last saw it, or * for any version.',
  428,
);
export const EventExpired = apiError<[id: string, reason: string]>(
  'EVENT_EXPIRED',
  'Event %s %s; it can no longer be sent.',
  410,
);
export const RouteNotFound = apiError<[method: string, path: string]>(
  'ROUTE_NOT_FOUND',
  'No operation is defined for %s %s; the operations are listed at /docs.',
  404,
);
export const MethodNotAllowed = apiError<[method: string, path: string, allowed: string]>(
  'METHOD_NOT_ALLOWED',
  '%s is not allowed on %s; use %s.',
  405,
);
export const OperationGone = apiError<[reason: string]>('OPERATION_GONE', '%s', 410);
export const CursorExpired = apiError<[after: string, reason: string]>(
  'CURSOR_EXPIRED',
  'after %s %s; read the pets again with listPets and follow the feed from its start (without after).',
  410,
);
export const PositionExpired = apiError<[after: string, reason: string]>(
  'CURSOR_EXPIRED',
  'after %s %s; set a position the feed still keeps.',
  410,
);
export const RequestTimeout = apiError<[]>('REQUEST_TIMEOUT', 'The request was not received in time.', 408);
export const PayloadTooLarge = apiError<[limit: number]>('PAYLOAD_TOO_LARGE', 'The body is larger than %s bytes.', 413);
export const UnsupportedMediaType = apiError<[received: string, accepted: string]>(
  'UNSUPPORTED_MEDIA_TYPE',
  '%s is not supported; send the body as UTF-8 %s.',
  415,
);
export const PreconditionFailed = apiError<[petId: string, sent: string, current: string]>(
  'PRECONDITION_FAILED',
  'Pet %s changed since you read it: If-Match %s is not its current entity tag %s; read it again and retry with its ETag.',
  412,
);
export const PreconditionRequired = apiError<[]>(
  'PRECONDITION_REQUIRED',
  'This operation needs If-Match: send the ETag of the pet as you last saw it, or * for any version.',
  428,
);
export const IdempotencyKeyReused = apiError<[petId: string]>(
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used to create pet %s from a different body; send a new key for a new pet.',
  422,
);
export const ChangeKeyReused = apiError<[operationId: string, petId: string]>(
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used for another %s request (pet %s); send a new key for a new request.',
  422,
);
export const TooManyRequests = apiError<[reason: string]>('TOO_MANY_REQUESTS', '%s', 429);
export const HeadersTooLarge = apiError<[]>('HEADERS_TOO_LARGE', 'The request headers are too large.', 431);
/** Seconds a client is asked to wait (Retry-After) when the store cannot be reached. */
export const RETRY_AFTER_SECONDS = 2;
export const ServiceUnavailable = apiError<[]>(
  'SERVICE_UNAVAILABLE',
  `The pet store is unavailable for a moment; retry after ${RETRY_AFTER_SECONDS} seconds.`,
  503,
);
export const InternalError = apiError<[requestId: string]>(
  'INTERNAL_ERROR',
  'Something went wrong on our side. Quote request id %s when reporting it.',
  500,
);
