// Whether a request carries a body is decided from its headers, before anything is parsed:
// a body the operation does not take is refused rather than ignored.
import type { FastifyRequest } from 'fastify';
import { BodyNotAllowed, BodyRequired } from '../errors/api-errors.js';
import type { OperationObject } from '../openapi/openapi-spec.js';

export function bodyPresenceCheck(operation: OperationObject) {
  const takesBody = operation.requestBody !== undefined;
  const needsBody = operation.requestBody?.required === true;
  return function checkBodyPresence(request: FastifyRequest): void {
    const hasBody =
      request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && !takesBody) throw new BodyNotAllowed();
    if (!hasBody && needsBody) throw new BodyRequired();
  };
}
