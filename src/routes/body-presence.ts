// Whether a request carries a body, and of which media type, is decided from its headers, before
// anything is parsed: a body the operation does not take is refused rather than ignored, and one
// of a media type the operation does not name in openapi.yaml, or in a charset other than UTF-8,
// gets 415 naming the one it takes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BodyNotAllowed, BodyRequired, UnsupportedMediaType } from '../errors/api-errors.js';
import type { OperationObject } from '../openapi/openapi-spec.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

export function bodyPresenceCheck(operation: OperationObject, method: string) {
  const takesBody = operation.requestBody !== undefined;
  const needsBody = operation.requestBody?.required === true;
  const mediaTypes = Object.keys(
    (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {},
  );
  const accepted = mediaTypes.join(' or ');
  // RFC 5789, 2.2: a PATCH refused for its media type says which one to send.
  const acceptPatch = method.toLowerCase() === 'patch' ? accepted : undefined;
  return function checkBodyPresence(request: FastifyRequest, reply: FastifyReply): void {
    const hasBody =
      request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && !takesBody) throw new BodyNotAllowed();
    if (!hasBody && needsBody) throw new BodyRequired(accepted);
    if (!hasBody) return;
    const contentType = request.headers['content-type'];
    const mediaType = contentType?.replace(/;.*$/s, '').trim().toLowerCase();
    const charset = contentType === undefined ? undefined : CHARSET.exec(contentType)?.[1];
    if (
      mediaType === undefined ||
      !mediaTypes.includes(mediaType) ||
      (charset !== undefined && charset.toLowerCase() !== 'utf-8')
    ) {
      if (acceptPatch !== undefined) reply.header('accept-patch', acceptPatch);
      throw new UnsupportedMediaType(describeContentType(contentType), accepted);
    }
  };
}

function describeContentType(contentType: string | undefined): string {
  return contentType === undefined ? 'A body without a Content-Type header' : `Content-Type ${contentType}`;
}
